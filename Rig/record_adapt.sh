#!/bin/bash
# Records the adapt-* rig scenarios (the layer policy and audio fallback, docs/adaptation.md) in one command, as root:
#
#     Rig/record_adapt.sh [OUT_DIR] [SCENARIO...]
#
# OUT_DIR (default Recordings/): where NAME.ndjson.gz and NAME.labels.json go. SCENARIO: names
# in Rig/scenarios/ (default: the three adapt-* ones). Each recording holds the rig lock
# (`flock /tmp/callscope-rig.lock`) only while it runs, so other rig users get turns in between.
# Extra record.py options (e.g. `--callscope PATH`) go in RECORD_ARGS. Each scenario is 110 s
# of call, ~2 min 50 s end to end. After each recording, Rig/check_adapt.py checks its
# scenario's `video_expect` (what docs/adaptation.md promises); at the end `callscope evaluate` (CALLSCOPE_CLI,
# default .build/release/callscope) scores the recordings made. Exit 1 when any recording or check
# failed (the others still run).
set -u
RIG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$RIG_DIR")
OUT_DIR=${1:-$REPO_DIR/Recordings}
[ $# -gt 0 ] && shift
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(adapt-subscriber-downlink-600k adapt-subscriber-downlink-100k
                                         adapt-subscriber-downlink-100k-no-fallback)
mkdir -p "$OUT_DIR" || exit 1
failed=()
recorded=()
for name in "${SCENARIOS[@]}"; do
    echo "record_adapt.sh: $name -> $OUT_DIR/$name.ndjson.gz" >&2
    # shellcheck disable=SC2086  # RECORD_ARGS is a list of options
    if ! flock /tmp/callscope-rig.lock python3 "$RIG_DIR/record.py" --scenario "$RIG_DIR/scenarios/$name.json" \
            --out "$OUT_DIR/$name.ndjson.gz" ${RECORD_ARGS:-}; then
        failed+=("$name")
        continue
    fi
    recorded+=("$OUT_DIR/$name.ndjson.gz")
    python3 "$RIG_DIR/check_adapt.py" "$OUT_DIR/$name.ndjson.gz" || failed+=("$name (check_adapt.py)")
done
CLI=${CALLSCOPE_CLI:-$REPO_DIR/.build/release/callscope}
if [ ${#recorded[@]} -gt 0 ]; then
    "$CLI" evaluate "${recorded[@]}" || failed+=("callscope evaluate")
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "record_adapt.sh: failed: ${failed[*]}" >&2
    exit 1
fi
