#!/usr/bin/env bash
# Builds and runs Scripts/frames_harness.c (our AVX2 kernels against libyuv, call by call; see
# the file's header). Needs clang and libyuv-dev; x86-64 with AVX2. The binary goes to a
# temporary directory. Arguments are passed on (calls per row, default 1000); `--build-only`
# builds (warnings are errors) and runs nothing, as Scripts/test.sh does to keep it compiling.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
clang -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I "$root/Sources/CVideoFramesAVX2/include" \
    "$root/Scripts/frames_harness.c" "$root"/Sources/CVideoFramesAVX2/*.c -lyuv -o "$out/frames_harness"
if [ "${1:-}" = --build-only ]; then exit 0; fi
"$out/frames_harness" "$@"
