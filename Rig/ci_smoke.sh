#!/bin/bash
# CallScope real-call CI smoke test. One command, as root, from anywhere:
#
#     Rig/ci_smoke.sh
#
# 0. takes the built CLI (`swift build --show-bin-path`/callscope, debug), building it only when
#    it is missing, unless CALLSCOPE_CLI names one (a `swift build` with other flags than the
#    last build's recompiles everything, so it does not rebuild a binary that is there);
# 1. records Rig/scenarios/ci-smoke.json (12 s clean, then the publisher uplink capped at
#    300 kbit/s until 30 s) with Rig/record.py into a temp dir, its publisher and subscriber
#    being `callscope call` processes of that CLI (the rig's SDK path);
# 2. replays it from the repo root: `callscope replay REC --format ndjson`;
# 3. Rig/ci_check.py asserts the publisher's networkCondition: excellent/good before the cap,
#    warning/critical + reason "bandwidth" for >= 5 s during it.
# Prints "PASS: ..." or "FAIL: ..." as its last line; exit 0 only on PASS.
#
# Needs: root, python3 (>= 3.9), chromium chromium-driver janus iptables iproute2, swift.
# Takes ~45 s when the CLI is built (Scripts/test.sh builds it before).
# Clean-up on every path (success, failure, SIGINT/SIGTERM/SIGHUP): record.py is stopped by its
# pid and removes its own processes, namespaces, veths and iptables rules; `swift run` is ended by
# its process group; `record.py --cleanup-only` then removes anything a hard-killed run left;
# the temp dir is deleted.
#
# Environment (optional): CALLSCOPE_CLI=/path/to/callscope  use a built binary instead of
# building one; CALLSCOPE_SWIFT_FLAGS="--scratch-path DIR"  extra `swift build` flags;
# CI_SMOKE_KEEP=1  keep the temp dir (recording, replay, logs).
set -u
RIG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$RIG_DIR")
RECORD_TIMEOUT=150      # s; record.py bounds every wait itself, this is the outer watchdog
REPLAY_TIMEOUT=240      # s; includes building the CLI if needed
START=$(date +%s)
WORK=""
REC_PID=""
RUN_PID=""
RESULT="FAIL: ci-smoke: did not finish"
RC=1
STARTED_RECORD=0

say() { echo "[ci-smoke $(date +%H:%M:%S)] $*"; }

stop_pid() {  # stop_pid PID GRACE GROUP(0/1): SIGTERM (the group if GROUP=1), SIGKILL after GRACE s
    local pid=$1 grace=$2 group=$3 i
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    if [ "$group" = 1 ]; then kill -TERM -- "-$pid" 2>/dev/null; else kill -TERM "$pid" 2>/dev/null; fi
    for ((i = 0; i < grace * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    return 0
}

cleanup() {
    trap '' INT TERM HUP          # a second signal must not cut the clean-up short
    # record.py cleans up after itself on SIGTERM (pages, chromedriver+Chromium, Janus, netns)
    stop_pid "$REC_PID" 40 0
    REC_PID=""
    stop_pid "$RUN_PID" 10 1
    RUN_PID=""
    if [ "$STARTED_RECORD" = 1 ]; then
        python3 "$RIG_DIR/record.py" --cleanup-only >/dev/null 2>&1 || say "warning: record.py --cleanup-only failed"
    fi
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        if [ "${CI_SMOKE_KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
    fi
}

finish() {
    cleanup
    say "took $(( $(date +%s) - START )) s"
    echo "$RESULT"
    exit "$RC"
}

on_signal() {
    RESULT="FAIL: ci-smoke: interrupted by SIG$1"
    RC=130
    exit 130                      # runs the EXIT trap (finish)
}

trap finish EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

fail() { RESULT="FAIL: ci-smoke: $*"; RC=1; exit 1; }

# wait_bounded PID LIMIT NAME: wait for PID, at most LIMIT s (signals are handled within ~1 s)
wait_bounded() {
    local pid=$1 limit=$2 name=$3 t=0
    while kill -0 "$pid" 2>/dev/null; do
        if (( t >= limit )); then
            say "$name did not finish in ${limit}s"
            return 124
        fi
        sleep 1
        t=$((t + 1))
    done
    wait "$pid"
}

# await_step PID_VAR LIMIT GRACE GROUP LOG WHAT: waits for the background step whose pid is in the
# variable PID_VAR, at most LIMIT s; when it fails or overruns, stops it (SIGKILL after GRACE s, its
# process group when GROUP=1), shows the end of LOG and fails naming WHAT and its exit code.
await_step() {
    local var=$1 limit=$2 grace=$3 group=$4 log=$5 what=$6 rc
    wait_bounded "${!var}" "$limit" "$what"
    rc=$?
    if [ "$rc" != 0 ]; then
        stop_pid "${!var}" "$grace" "$group"
        printf -v "$var" '%s' ""
        tail -n 25 "$log"
        fail "$what failed (exit $rc)"
    fi
    printf -v "$var" '%s' ""
}

# ---- preconditions
[ "$(id -u)" = 0 ] || fail "must run as root (network namespaces, tc, iptables)"
for tool in python3 ip iptables tc chromedriver janus setsid; do
    command -v "$tool" >/dev/null 2>&1 || fail "missing tool: $tool"
done
[ -x /usr/lib/chromium/chromium ] || fail "missing /usr/lib/chromium/chromium (Debian package chromium)"
if [ -z "${CALLSCOPE_CLI:-}" ]; then command -v swift >/dev/null 2>&1 || fail "missing tool: swift"; fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || fail "python3 >= 3.9 needed"

WORK=$(mktemp -d /tmp/callscope-ci-smoke.XXXXXX) || fail "mktemp failed"
REC="$WORK/ci-smoke.ndjson.gz"
LABELS="$WORK/ci-smoke.labels.json"

# ---- 0. the CLI (the rig's peers and the replay)
cd "$REPO_DIR" || fail "cannot cd to $REPO_DIR"
if [ -n "${CALLSCOPE_CLI:-}" ]; then
    CLI=$CALLSCOPE_CLI
else
    # shellcheck disable=SC2086
    CLI="$(swift build ${CALLSCOPE_SWIFT_FLAGS:-} --show-bin-path)/callscope"
    if [ ! -x "$CLI" ]; then
        say "building the CLI (swift build --product callscope)"
        # shellcheck disable=SC2086
        setsid swift build ${CALLSCOPE_SWIFT_FLAGS:-} --product callscope >"$WORK/build.log" 2>&1 &
        RUN_PID=$!
        await_step RUN_PID "$REPLAY_TIMEOUT" 10 1 "$WORK/build.log" "building the CLI (swift build)"
    fi
fi
[ -x "$CLI" ] || fail "no callscope binary at $CLI"

# ---- 1. record
say "recording Rig/scenarios/ci-smoke.json (about 45 s) with $CLI call as the peers"
STARTED_RECORD=1
setsid python3 "$RIG_DIR/record.py" --scenario "$RIG_DIR/scenarios/ci-smoke.json" --out "$REC" \
    --peers sdk --callscope "$CLI" >"$WORK/record.log" 2>&1 &
REC_PID=$!
await_step REC_PID "$RECORD_TIMEOUT" 40 0 "$WORK/record.log" "recording (record.py)"
[ -s "$REC" ] && [ -s "$LABELS" ] || { tail -n 25 "$WORK/record.log"; fail "recording or labels missing"; }
say "recorded $(stat -c %s "$REC") bytes in $(( $(date +%s) - START )) s"

# ---- 2. replay
say "replaying with $CLI"
setsid "$CLI" replay "$REC" --format ndjson >"$WORK/replay.ndjson" 2>"$WORK/replay.err" &
RUN_PID=$!
await_step RUN_PID "$REPLAY_TIMEOUT" 10 1 "$WORK/replay.err" "replay"

# ---- 3. check
python3 "$RIG_DIR/ci_check.py" "$WORK/replay.ndjson" "$LABELS" --min-seconds 5 >"$WORK/check.out" 2>&1
rc=$?
cat "$WORK/check.out"
RESULT=$(tail -n 1 "$WORK/check.out")
case "$RESULT" in PASS:*|FAIL:*) ;; *) RESULT="FAIL: ci-smoke: check crashed (exit $rc)";; esac
[ "$rc" = 0 ] || { RC=1; exit 1; }
RC=0
exit 0
