#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine with the Swift toolchain, as root:
# installs the Debian packages the tests need when missing, builds (warnings are errors), runs
# the unit, reader, golden and real-recording tests, replays the shipped call, and finally
# records a short real call with the rig (Chromium + Janus, publisher uplink capped) and checks
# that the engine sees the impairment.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

# libyuv: the reference the frame-conversion tests compare against.
# chromium, chromium-driver, janus, iptables, iproute2: the real-call rig of the last step.
packages=(libyuv-dev chromium chromium-driver janus iptables iproute2 python3)
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
swift test -Xswiftc -warnings-as-errors
# The Calls modules on real components: Janus on loopback (Rig/janus config, free ports), two
# headless Chromiums per test through chromedriver, our Swift signaling and media engine; one
# test at a time (2 cores), bounded so a hang fails CI instead of eating its 90 minutes
# (measured: 18-24 s for the three tests: a call, a session lifecycle, Janus killed and restarted).
CALLSCOPE_REAL=1 timeout 300 swift test -Xswiftc -warnings-as-errors --no-parallel --filter CallsRealTests
# The README's main job must work on the shipped recording.
swift run callscope replay >/dev/null
frames_out="$(mktemp)"
swift run callscope frames convert Recordings/frames/astronaut-vp8-240x135.y4m.gz --to bgra -o "$frames_out"
test "$(stat -c %s "$frames_out")" -eq $((4 * 240 * 135 * 4))    # 4 frames of 240x135 BGRA
rm -f "$frames_out"
# Reconnection on a real network path: the subscriber's Chromium in a csrig- network namespace,
# everything toward it dropped for 8 s (didDisconnect within 4 s, didReconnect within 3 s of the
# end) and for 40 s (one streamDestroyed at the 30 s window, nothing after). Like the rig it
# needs root and must not overlap another rig run (run this script under
# `flock /tmp/callscope-rig.lock` when others share the machine). Measured: 69 s for both.
CALLSCOPE_REAL=1 CALLSCOPE_REAL_NETNS=1 timeout 300 swift test -Xswiftc -warnings-as-errors --filter RealReconnectionTests
# A real call through the rig: the engine must see a publisher uplink cap (see Rig/README.md).
bash Rig/ci_smoke.sh
