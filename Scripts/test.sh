#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine with the Swift toolchain, as root:
# installs the Debian packages the tests need when missing, builds (warnings are errors), runs
# the unit, reader, golden and real-recording tests, replays the shipped call, runs the reader and
# engine tests under ASan and TSan, fuzzes every reader, and finally
# records a short real call with the rig (Chromium + Janus, publisher uplink capped) and checks
# that the engine sees the impairment.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

# libyuv: the reference the frame-conversion tests compare against.
# chromium, chromium-driver, janus, iptables, iproute2: the real-call rig of the last step.
# coturn: the real STUN/TURN server `callscope discover` is tested against.
# prometheus, prometheus-pushgateway, python3-venv: the export tests (Scripts/test_exports.py).
packages=(libyuv-dev chromium chromium-driver janus iptables iproute2 python3 coturn prometheus prometheus-pushgateway python3-venv)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "test.sh: missing Debian packages (${missing[*]}); run as root to install them" >&2
        exit 1
    fi
    echo "test.sh: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

swift build -Xswiftc -warnings-as-errors
# The public API must match the checked-in listing (API/): a change to it is deliberate.
python3 Scripts/public_api.py --check
swift test -Xswiftc -warnings-as-errors
# The switch that forces the Swift SIMD frame kernels, read at process start (about 1 s).
CALLSCOPE_FRAMES_KERNEL=swift swift test --skip-build --filter VectorKernelSelectionTests
# The Calls modules on real components: Janus on loopback (Rig/janus config, free ports), two
# headless Chromiums per test through chromedriver, our Swift signaling and media engine; one
# test at a time (2 cores), bounded so a hang fails CI instead of eating its 90 minutes
# (measured: 18-24 s for the three tests: a call, a session lifecycle, Janus killed and restarted;
# plus 32 s for `callscope call --record` by a publisher and a subscriber, each recording replayed
# by `callscope replay` to the same callbacks: RealRecordReplayTests, which runs .build/debug/callscope;
# the whole invocation measured 54 s; plus 13 s for `callscope call --width/--height/--fps/--bitrates`
# reaching the encoder and SIGTERM ending a call with its recording, and 2 s for SIGTERM during the
# start-up: RealCallOptionsTests; the whole invocation with them measured 72 s).
CALLSCOPE_REAL=1 timeout 300 swift test -Xswiftc -warnings-as-errors --no-parallel --filter CallsRealTests
# The README's main job must work on the shipped recording.
swift run callscope replay >/dev/null
frames_out="$(mktemp)"
swift run callscope frames convert Recordings/frames/astronaut-vp8-240x135.y4m.gz --to bgra -o "$frames_out"
test "$(stat -c %s "$frames_out")" -eq $((4 * 240 * 135 * 4))    # 4 frames of 240x135 BGRA
rm -f "$frames_out"
# The README's call-by-call frame timings (Scripts/frames_harness.c) must keep compiling against
# the AVX2 kernels: built, not run (timings are not tests; ~2 s).
if [ "$(uname -m)" = x86_64 ]; then bash Scripts/frames_harness.sh --build-only; fi
# The shipped rig recordings: each has its publishers' three layers, one decoded stream per publisher,
# every publisher's sender-stats, no CPU-limited layer in its clean part (Rig/check_recording.py), and
# its labels are what its scenario gives (Rig/labels.py --check). ~5 s.
# The rig's SDK path relabels its `callscope call` recordings into one (Rig/sdk_peers.py; < 1 s).
python3 Rig/test_sdk_peers.py
# Issue 11's "Done when" checker for the adapt-* recordings (Rig/check_adapt.py; < 1 s).
python3 Rig/test_check_adapt.py
for recording in Recordings/*.ndjson.gz; do
    python3 Rig/check_recording.py "$recording" >/dev/null || { echo "test.sh: $recording fails Rig/check_recording.py" >&2; exit 1; }
    if [ -f "${recording%.ndjson.gz}.labels.json" ]; then python3 Rig/labels.py --check "$recording"; fi
done
# Discoverability against a real coturn, UDP then everything dropped by iptables in a network
# namespace of its own, and hostile STUN servers (~35 s; see Rig/discover_real.py).
python3 Rig/discover_real.py
# Exports against real Prometheus + Pushgateway and the official OTLP protobuf, reports in
# headless Chromium, analyze on every capture (~25 s, plus ~10 s for the venv the first time).
venv=.build/test-exports-venv
if ! "$venv/bin/python" -c "import opentelemetry.proto" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "opentelemetry-proto==1.45.2"
fi
"$venv/bin/python" Scripts/test_exports.py --callscope .build/debug/callscope
# Sanitizers (issue 14.13), on the reader and engine tests (the VideoFrames tests take minutes
# even unsanitized). Each in its own scratch directory so the normal build is kept. Measured on
# the 2-core CI machine kind: ASan ~95 s (75 s build + 20 s tests), TSan ~105 s (85 s + 20 s).
# LeakSanitizer stays on; only swift-corelibs-xctest's own two allocations are suppressed.
export SWIFT_BACKTRACE=enable=no
sanitized_tests="RTCStatsTests|ObservabilityTests"
LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp" \
    swift test --sanitize=address --scratch-path .build/asan -Xswiftc -warnings-as-errors --filter "$sanitized_tests"
TSAN_OPTIONS="halt_on_error=1" \
    swift test --sanitize=thread --scratch-path .build/tsan -Xswiftc -warnings-as-errors --filter "$sanitized_tests"
unset SWIFT_BACKTRACE
# Fuzzing (issue 14.12): inputs that once crashed, then libFuzzer + ASan on every reader, the
# sender-stats decoder and the Y4M reader, 20 s each (~3.5 min with the build).
bash Scripts/fuzz.sh 20
# Reconnection on a real network path: the subscriber's Chromium in a csrig- network namespace,
# everything toward it dropped for 8 s (didDisconnect within 4 s, didReconnect within 3 s of the
# end) and for 40 s (one streamDestroyed at the 30 s window, nothing after). Like the rig it
# needs root and must not overlap another rig run (run this script under
# `flock /tmp/callscope-rig.lock` when others share the machine). Measured: 69 s for both.
# The same suite holds the signaling-only outage: TCP to Janus' HTTP port dropped for 10 s while
# media flows, no didDisconnect/streamDestroyed, resubscribing afterwards works (26 s; 94 s for all three).
# And a publisher blackout (Alice's Chromium in the namespace, 8 s): publisher didDisconnect and
# didReconnect (18.4 s measured; 115 s for the four); and for 40 s: one publisher streamDestroyed at
# the 30 s window, after a republish (54 s; ~170 s for the five).
# The coturn call scenarios (RealRelayTests, coturn on the namespace's root-side address with
# Rig/coturn/turnserver.conf): relay-only over UDP -> udpRelay; one call through UDP dropped
# (tcpRelay, tcp), everything dropped (paths empty, offline, still connected) and back (udp,
# udpDirect), each timed. Measured: 30-33 s for both. Its own invocation: two suites in one would
# run in parallel, on the same namespace.
# A failed suite's `diagnostics:` lines (what a test that missed a bound found out: Chromium's
# trace, Janus' ICE log) are printed again at its end, where CI's excerpt of the output shows them.
netns_suite() {
    local seconds="$1" filter="$2" log
    log="$(mktemp)"
    if ! CALLSCOPE_REAL=1 CALLSCOPE_REAL_NETNS=1 timeout "$seconds" swift test -Xswiftc -warnings-as-errors --filter "$filter" 2>&1 | tee "$log"; then
        echo "test.sh: $filter failed; its diagnostics again:"
        grep -F '] diagnostics: ' "$log" | tail -n 90 || true
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}
netns_suite 420 RealReconnectionTests
netns_suite 300 RealRelayTests
# The layer policy on the same namespace (issue 11): Bob's downlink capped by tc tbf at 400 kbit/s
# (a lower layer, frames again within 5 s) and 100 kbit/s (videoDisabled(qualityChanged) within 5 s,
# audio kept, videoEnabled within 15 s of the removal), the same cap without audio fallback (warning,
# lowest layer), the publisher's camera off/on, preferredResolution lowered and raised. Caps held
# 22 s here (the issue's 60 s: CALLSCOPE_ADAPT_HOLD=60, by hand). Measured: 129 s for the five.
# (It was out of this script for a stop: a full CI run saw a fallback at 400 kbit/s and a late one
# at 100 kbit/s. Mended since, not proven to be those runs' cause: a one-interval dip that fitted
# nothing was taken for a step down to the lowest layer, which delayed the warning by the two
# intervals not judged after a step down; see README "Video that adapts".)
netns_suite 400 RealAdaptationTests
# A real call through the rig, its peers `callscope call` processes of the debug build above (the
# SDK path): the engine must see a publisher uplink cap (see Rig/README.md; measured 43 s).
bash Rig/ci_smoke.sh
