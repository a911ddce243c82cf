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
# prometheus, prometheus-pushgateway, python3-venv: the export tests (Scripts/test_exports.py).
packages=(libyuv-dev chromium chromium-driver janus iptables iproute2 python3 prometheus prometheus-pushgateway python3-venv)
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
# The README's main job must work on the shipped recording.
swift run callscope replay >/dev/null
frames_out="$(mktemp)"
swift run callscope frames convert Recordings/frames/astronaut-vp8-240x135.y4m.gz --to bgra -o "$frames_out"
test "$(stat -c %s "$frames_out")" -eq $((4 * 240 * 135 * 4))    # 4 frames of 240x135 BGRA
rm -f "$frames_out"
# Exports against real Prometheus + Pushgateway and the official OTLP protobuf, reports in
# headless Chromium, analyze on every capture (~25 s, plus ~10 s for the venv the first time).
venv=.build/test-exports-venv
if ! "$venv/bin/python" -c "import opentelemetry.proto" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "opentelemetry-proto==1.45.2"
fi
"$venv/bin/python" Scripts/test_exports.py --callscope .build/debug/callscope
# A real call through the rig: the engine must see a publisher uplink cap (see Rig/README.md).
bash Rig/ci_smoke.sh
