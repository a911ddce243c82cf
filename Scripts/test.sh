#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine with the Swift toolchain:
# installs what the tests need when missing, then builds (warnings are errors) and tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use: the real-call rig's pieces (when rig tests run) and libyuv
# (the reference of the frame-conversion comparison). Installed only when missing.
needed=()
for package in ${CALLSCOPE_TEST_PACKAGES:-}; do
    dpkg -s "$package" >/dev/null 2>&1 || needed+=("$package")
done
if [ "${#needed[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needed[@]}"
    else
        echo "test.sh: missing Debian packages (${needed[*]}); run as root or install them" >&2
        exit 1
    fi
fi

swift build -Xswiftc -warnings-as-errors
swift test -Xswiftc -warnings-as-errors
# The README's main job must work on the shipped recording.
swift run callscope replay >/dev/null
