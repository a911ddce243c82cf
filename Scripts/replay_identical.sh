#!/usr/bin/env bash
# Checks that two callscope binaries replay every shipped recording, every rtcstats fixture and
# every shared public capture identically (ndjson and text output, stderr and exit code).
# Usage: Scripts/replay_identical.sh OLD_BINARY NEW_BINARY
set -u
# One order for equal counts in messages that list a dictionary (Swift seeds hashing per process).
export SWIFT_DETERMINISTIC_HASHING=1
old=$1 new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
files=()
while IFS= read -r file; do files+=("$file"); done < <(
    { find "$root/Recordings" -maxdepth 1 -type f \( -name '*.gz' -o -name '*.json' \) ! -name '*.labels.json' ! -name '*.expected.json'
      find "$root/Tests/RTCStatsTests/Fixtures" -type f
      find "$root/../shared/data/public-stats" -type f 2>/dev/null; } | sort)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
differ=0 same=0
for file in "${files[@]}"; do
    for format in ndjson text; do
        "$old" replay --format "$format" "$file" >"$work/old.out" 2>"$work/old.err"; echo "exit $?" >>"$work/old.err"
        "$new" replay --format "$format" "$file" >"$work/new.out" 2>"$work/new.err"; echo "exit $?" >>"$work/new.err"
        if cmp -s "$work/old.out" "$work/new.out" && cmp -s "$work/old.err" "$work/new.err"; then
            same=$((same + 1))
        else
            differ=$((differ + 1)); echo "DIFFERS: $format $file"
        fi
    done
done
echo "${#files[@]} files: $same identical, $differ different (ndjson and text each)"
[ "$differ" -eq 0 ]
