#!/usr/bin/env bash
# Fuzzes every reader, the sender-stats decoder, the Y4M reader, the XMPP stanza reader and the Jingle/SDP readers with libFuzzer + AddressSanitizer,
# each for a bounded time, seeded with the real corpus (Scripts/fuzz_seeds.py). First replays every
# input that once crashed (Tests/FuzzRegressions/<target>/) through a normal build.
# A crash, a timeout, an out-of-memory or an ASan report fails the script; the input is saved in
# $FUZZ_ARTIFACTS (default .build/fuzz-artifacts) and printed in base64, to be added to
# Tests/FuzzRegressions/<target>/ with the fix.
#
# usage: Scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 20 s, every target)
# Targets run FUZZ_JOBS at a time (default: the number of CPUs), each for the whole
# SECONDS_PER_TARGET: a libFuzzer run uses one core.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
seconds="${1:-20}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(timeline recording rtcstats webrtc-internals report json gzip sender-stats y4m xmpp jingle)
fi
artifacts="${FUZZ_ARTIFACTS:-.build/fuzz-artifacts}"
mkdir -p "$artifacts"

# 1. Regression inputs, through the plain build (no libFuzzer: each file runs once).
swift build --product CallScopeFuzz -Xswiftc -warnings-as-errors >/dev/null
for target in "${targets[@]}"; do
    if [ -d "Tests/FuzzRegressions/$target" ]; then
        .build/debug/CallScopeFuzz "$target" "Tests/FuzzRegressions/$target"
    fi
done

# 2. libFuzzer + ASan build, in its own scratch directory (the normal build stays as it is).
# --export-dynamic lets the executable find libFuzzer's LLVMFuzzerRunDriver at run time.
swift build -c release --product CallScopeFuzz --scratch-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xlinker --export-dynamic 2>&1 | grep -v "Cannot export local symbol" || true
fuzzer=.build/fuzz/release/CallScopeFuzz
test -x "$fuzzer"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 Scripts/fuzz_seeds.py "$work/seeds"

export SWIFT_BACKTRACE=enable=no          # let ASan/libFuzzer report, not the Swift backtracer
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:symbolize=1"   # leaks: see Scripts/test.sh's ASan pass
jobs="${FUZZ_JOBS:-$(nproc)}"
# Fuzzes one target; its status goes to $work/$target.status.
fuzz_target() {
    local target="$1"
    mkdir -p "$work/corpus/$target"
    if "$fuzzer" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
        "$work/corpus/$target" "$work/seeds/$target" >"$work/$target.log" 2>&1; then
        echo ok >"$work/$target.status"
    else
        echo FAILED >"$work/$target.status"
    fi
}
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_target "$target" &
done
wait
failed=0
summary=""
for target in "${targets[@]}"; do
    log="$work/$target.log"
    status="$(cat "$work/$target.status" 2>/dev/null || echo FAILED)"
    [ "$status" = ok ] || failed=1
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    per_second="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
    coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
    summary+="$(printf '%-18s %-6s %10s runs %8s/s  coverage %s' "$target" "$status" "${runs:-?}" "${per_second:-?}" "${coverage:-?}")"$'\n'
    if [ "$status" = FAILED ]; then
        grep -E "ERROR|SUMMARY|Fatal error|#[0-9]+ 0x" "$log" | head -30 >&2 || true
        for artifact in "$artifacts/$target-"*; do
            [ -f "$artifact" ] || continue
            echo "fuzz.sh: $target input that failed: $artifact (base64: $(base64 -w0 "$artifact" | head -c 2000))" >&2
        done
    fi
done
printf 'fuzz.sh: %s s per target, %s at a time\n%s' "$seconds" "$jobs" "$summary"
exit "$failed"
