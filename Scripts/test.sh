#!/usr/bin/env bash
# The whole test suite (docs/testing.md), as root on Debian 12 with the Swift toolchain; .ci/run
# calls it. Installs the Debian packages it needs, then runs every step below; any failure stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

# libyuv: the reference the frame-conversion tests compare against.
# chromium, chromium-driver, janus, iptables, iproute2: the real-call tests and the rig.
# coturn: the real STUN/TURN server for discoverability and relay tests.
# prosody: the real XMPP server of the XMPP client tests (XMPPRealTests, docs/peer-to-peer.md).
# prometheus, prometheus-pushgateway, python3-venv: the export tests (Scripts/test_exports.py).
packages=(libyuv-dev chromium chromium-driver janus iptables iproute2 python3 coturn prosody prometheus prometheus-pushgateway python3-venv)
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

# Build with warnings as errors.
swift build -Xswiftc -warnings-as-errors
# The public API must match the checked-in listing (API/): a change to it is deliberate.
python3 Scripts/public_api.py --check
# Unit, reader, golden and real-recording tests.
swift test -Xswiftc -warnings-as-errors
# The switch that forces the Swift SIMD frame kernels, read at process start (about 1 s).
CALLSCOPE_FRAMES_KERNEL=swift swift test --skip-build --filter VectorKernelSelectionTests
# The Calls modules on real components (CallsRealTests): Janus on loopback, headless Chromium
# through chromedriver, `callscope call --record` replayed to the same callbacks, the call options
# and SIGTERM, the seeds' participants, stream properties, paths and hang-up (RealSeedRowsTests,
# 10.7 s), and decoded frames out of Chromium at 960x540@30 (RealFrameChannelTests, ~21 s). One
# test at a time (2 cores); the timeout turns a hang into a failure. ~140 s (2026-12-02, machine shared).
CALLSCOPE_REAL=1 timeout 300 swift test -Xswiftc -warnings-as-errors --no-parallel --filter CallsRealTests
# The main job (README's first command) on the shipped recording, and a frame conversion of a
# shipped clip whose output size is checked. Built with the flags of every other build here: a
# `swift run` without -warnings-as-errors rebuilt callscope's modules (36 s), and the next
# `swift test` rebuilt them back (38 s); with the same flags it is up to date (< 1 s).
swift run -Xswiftc -warnings-as-errors callscope replay >/dev/null
frames_out="$(mktemp)"
swift run -Xswiftc -warnings-as-errors callscope frames convert Recordings/frames/astronaut-vp8-240x135.y4m.gz --to bgra -o "$frames_out"
test "$(stat -c %s "$frames_out")" -eq $((4 * 240 * 135 * 4))    # 4 frames of 240x135 BGRA
rm -f "$frames_out"
# The call-by-call frame timing harness (docs/speed.md) must keep compiling against the AVX2
# kernels: built, not run (timings are not tests; ~2 s).
if [ "$(uname -m)" = x86_64 ]; then bash Scripts/frames_harness.sh --build-only; fi
# The rig's own unit tests: the SDK path's relabelling (Rig/callscope_rig/peers.py) and the adapt-* checker
# (Rig/check_adapt.py); < 1 s each.
python3 Rig/test_sdk_peers.py
python3 Rig/test_package.py
python3 Rig/test_check_adapt.py
# The continuity checker of the long probe (Scripts/series_continuity.py, used by
# Scripts/probe_memory.py --prometheus; the probe itself is run by hand) on hand-made series; < 1 s.
python3 Scripts/test_series_continuity.py
# Every shipped recording: its publishers' three layers, one decoded stream per publisher, every
# publisher's sender stats, no CPU-limited layer in its clean part, and labels matching its
# scenario (Rig/check_recording.py, Rig/labels.py --check). ~5 s.
for recording in Recordings/*.ndjson.gz; do
    python3 Rig/check_recording.py "$recording" >/dev/null || { echo "test.sh: $recording fails Rig/check_recording.py" >&2; exit 1; }
    if [ -f "${recording%.ndjson.gz}.labels.json" ]; then python3 Rig/labels.py --check "$recording"; fi
done
# Discoverability against a real coturn, UDP then everything dropped by iptables in a network
# namespace, and hostile STUN servers (Rig/discover_real.py; docs/connection-state.md). ~35 s.
python3 Rig/discover_real.py
# The XMPP client on a real Prosody 0.12 (ws://, SCRAM-SHA-1) with coturn behind its XEP-0215
# credentials: two users become friends, TURN allocation with the handed-out credentials, a
# stream killed under a client resumes by itself (XEP-0198), a clean logout seen by the friend
# (docs/peer-to-peer.md). Loopback only, free ports; ~11 s, 20-22 s on a loaded machine.
CALLSCOPE_REAL=1 timeout 120 swift test -Xswiftc -warnings-as-errors --filter 'XMPPRealTests\.XMPPRealTests/'
# Federation (docs/peer-to-peer.md, "Federation"): two Prosody servers (a.callscope.example,
# b.callscope.example) with s2s and dialback on loopback ports, a coturn each; alice@a and bob@b
# become friends and see each other come and go, a friend request to a domain that never answers
# s2s bounces (remote-server-not-found), and their friend managers (a headless Chromium each)
# reach udpDirect over Jingle through both servers. 13.0-13.1 s in two runs (19.3-22.9 s in four earlier runs
# with a sequential teardown; 2026-12-02, machine shared); it waits ~5 s for Prosody's s2s_timeout on
# the dead domain, partly during Chromium's start.
CALLSCOPE_REAL=1 timeout 120 swift test -Xswiftc -warnings-as-errors --filter RealFederationTests
# The Jingle <-> SDP mapping between two real Chromium peer connections (one headless Chromium,
# Scripts/jingle_browser.py): data-channel-only (candidates in the SDP, then trickled through
# transport-info), audio + simulcast video + data channel, two-way audio + video (also with
# CallScope's own elements stripped, as from an XEP-only client, and with the video refused by
# the answerer: port 0 restored from the offer) offers and answers each go SDP -> Jingle XML ->
# SDP; the data channel must echo and RTP must arrive (docs/peer-to-peer.md, "Jingle").
# ~12 s (10.2 s for the six, 11.9 s with swift test's start, 2026-12-02).
CALLSCOPE_REAL=1 timeout 120 swift test -Xswiftc -warnings-as-errors --filter JingleRealTests
# A relayed call of two friends (docs/peer-to-peer.md, "Relayed calls"): Prosody + coturn, two
# CallSessions over JingleCallSignaling (XEP-0353, one Jingle session per publication), each with
# its headless Chromium; both publish and subscribe, video flows between the browsers, then one
# leaves. Loopback, no namespace. 13.7 s and 13.8 s for the test in two runs, 15.2 s with swift test's start (2026-12-02);
# 17.3-18.8 s in three later runs with both subscribers checked, on a machine running another suite.
CALLSCOPE_REAL=1 timeout 90 swift test -Xswiftc -warnings-as-errors --filter RealRelayedCallTests
# Replacing a relayed peer connection (docs/peer-to-peer.md, "Replacing a relayed peer
# connection"): the same call, then Alice's publishing RTCPeerConnection is closed in her
# browser under the SDK; ICE restarts cannot bring it back, her publisher publishes again in a
# new Jingle session replacing the old one, Bob's subscription moves to it as the same stream
# (video back on a new connection, didReconnect, nobody lost). Loopback, no namespace.
# 18.8 / 20.0 / 19.2 s for the test in three runs in a row (video back 4.3-4.4 s after the break;
# 2026-12-02, machine shared).
CALLSCOPE_REAL=1 timeout 90 swift test -Xswiftc -warnings-as-errors --filter RealRelayedRepublishTests
# The same call across federated servers (docs/peer-to-peer.md, "Federation"): alice@a and bob@b on
# two Prosody servers with s2s and dialback (a coturn each), XEP-0353 and Jingle through both
# servers, video both ways. 16.2-19.0 s in three runs (20.8 s with swift test's start in one; 2026-12-02).
CALLSCOPE_REAL=1 timeout 90 swift test -Xswiftc -warnings-as-errors --filter RealFederatedCallTests
# `callscope call --xmpp` (docs/peer-to-peer.md): the built binary twice on a real Prosody, Bob
# --answer, Alice --call, both --publish --duration 6 --format ndjson; both subscribers receive
# video and each publisher's stats name the other. 19.6-21.6 s in six runs (2026-12-02).
CALLSCOPE_REAL=1 timeout 90 swift test -Xswiftc -warnings-as-errors --filter RealCallCommandXMPPTests
# Exports against real Prometheus + Pushgateway and the official OTLP protobuf, reports in
# headless Chromium, analyze on every capture (docs/reports-and-exports.md), and a live call
# scraped by Prometheus through --metrics-port (docs/live-calls.md). ~25 s + ~27 s, plus ~10 s
# for the venv the first time.
venv=.build/test-exports-venv
if ! "$venv/bin/python" -c "import opentelemetry.proto" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "opentelemetry-proto==1.45.2"
fi
"$venv/bin/python" Scripts/test_exports.py --callscope .build/debug/callscope
# Unattended probes (docs/live-calls.md): `call --webdriver` through a chromedriver in a network
# namespace and a Grid-like path; `callscope probe` scraped by a real Prometheus with the shipped
# alerting rules (for: shortened), which must fire once Janus is stopped. ~21-23 s + ~26-36 s (50-62 s).
python3 Scripts/test_probes.py --callscope .build/debug/callscope
# ASan (with LeakSanitizer; Scripts/lsan.supp names xctest's own two allocations) and TSan on the
# reader and engine tests, each in its own scratch directory so the normal build is kept. The
# VideoFrames tests are left out: they take minutes even unsanitized. ~95 s and ~105 s.
export SWIFT_BACKTRACE=enable=no
sanitized_tests="RTCStatsTests|ObservabilityTests"
LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp" \
    swift test --sanitize=address --scratch-path .build/asan -Xswiftc -warnings-as-errors --filter "$sanitized_tests"
TSAN_OPTIONS="halt_on_error=1" \
    swift test --sanitize=thread --scratch-path .build/tsan -Xswiftc -warnings-as-errors --filter "$sanitized_tests"
unset SWIFT_BACKTRACE
# Fuzzing: first the inputs that once crashed (Tests/FuzzRegressions), then libFuzzer + ASan on
# every reader, the sender-stats decoder and the Y4M reader, 20 s each, two at a time on 2 cores
# (FUZZ_JOBS, default nproc). 295 s one at a time in CI with its 57 s build; 239.9 s one at a time,
# 131.7-137.6 s two at a time without the build (2026-12-02, machine shared).
bash Scripts/fuzz.sh 20
# The suites on a real network path, in a csrig- network namespace. Like the rig they need root
# and must not overlap another rig run (run this script under `flock /tmp/callscope-rig.lock`
# when others share the machine). One invocation per suite: two suites in one would run in
# parallel on the same namespace. A failed suite's `diagnostics:` lines (Chromium's trace, Janus'
# ICE log) are printed again at its end, where CI's excerpt of the output shows them.
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
# Seed 003's friend manager (docs/peer-to-peer.md): Prosody, coturn and two headless Chromiums,
# Bob's in csrig-friends: a friend online (udpDirect) and offline (paths empty), peers' UDP dropped
# (udpRelay), all UDP dropped (tcpRelay, discoverable tcp), everything dropped (empty, offline) and
# back, with no API call. 25.7-32.1 s measured in four runs, 22.9-28.5 s in nine with the
# returning-path fix, 25.5-26.1 s in three with the path rules of docs/peer-to-peer.md's trace
# (tcpRelay asserted within 5 s: 2.82-3.14 s; 2026-12-02, machine shared).
netns_suite 150 RealFriendManagerTests
# Issue 24's network change (docs/peer-to-peer.md#network-changes): Bob's namespace moves to another
# subnet with his XMPP stream cut: stream resumed, no offline presence, the friend connection back
# by an ICE restart on the same peer connection; then the XMPP server unreachable: Bob offline after
# 10 s and back. 25.1-25.5 s measured in three runs, 25.8-29.9 s in seven later ones (2026-12-02,
# machine shared).
netns_suite 120 RealFriendNetworkChangeTests
# A relayed call of three friends, a mesh (docs/peer-to-peer.md, "Relayed calls of several
# friends"): Prosody, coturn, three CallSessions over JingleMeshCallSignaling, three headless
# Chromiums, Carol's in csrig-friends: each publisher's arrays hold one element per subscriber;
# tbf 150 kbit on Carol's downlink degrades only Alice's and Bob's elements for her, and her
# subscribers' source is local. 22.7-27.5 s for the test in seven runs; 29.0 s with swift test's start (run 4)
# (2026-12-02, machine shared).
netns_suite 90 RealMeshCallTests
# Issue 24's network change mid-call (docs/peer-to-peer.md, "Reconnection, candidates and ICE
# restarts"): a relayed call with video both ways, Bob's Chromium in csrig-friends; his address
# moves to another subnet and his XMPP stream is cut: the stream resumes, ICE restarts over
# Jingle bring video back both ways, nobody is disconnected. 19.9-20.2 s in three runs, 20.6-21.1 s
# with swift test's start (2026-12-02).
netns_suite 90 RealRelayedReconnectTests
# Issue 24's audio fallback in a relayed call of two (docs/peer-to-peer.md, "Audio fallback (two
# parties)"): Bob's Chromium in csrig-friends, his downlink capped at 64 kbit/s (tbf): his policy
# reads the starved video as the link's, falls back to audio, Alice stops her video on his
# connection, the cap lifted brings it back; then Alice's camera really stops on the clean link
# and Bob reads it as hers. 38.6 / 40.8 / 41.5 s in three runs in a row, 40.4 / 41.8 / 42.6 s with
# swift test's start (2026-12-02, machine shared).
netns_suite 90 RealRelayedFallbackTests
# The same network change in a call of three (docs/peer-to-peer.md, "Reconnection in a mesh"):
# Carol's Chromium in csrig-friends, her address moves and her stream is cut; her stream resumes,
# video comes back on the four links that involve her, Alice<->Bob not interrupted, nobody
# disconnected. 27.0 / 24.5 / 23.0 s in three runs in a row, 28.6 / 25.8 / 24.2 s with swift
# test's start (2026-12-02, machine shared with a CI run).
netns_suite 90 RealMeshReconnectTests
# Replacing one connection of a mesh publication (docs/peer-to-peer.md, "Replacing a relayed peer
# connection"): a call of three, video on six links, one of Alice's two publishing
# RTCPeerConnections closed under the SDK: that member gets her video on a new connection, the
# other five links never stall. 22.7-27.0 s in three runs (2026-12-03).
netns_suite 90 RealMeshRepublishTests
# Subscriber and publisher blackouts of 8 s and 40 s, and a signaling-only outage
# (docs/reconnection.md). ~170 s.
netns_suite 420 RealReconnectionTests
# Calls through a real coturn: relay only, UDP dropped, everything dropped and back
# (docs/connection-state.md). 30-33 s.
netns_suite 300 RealRelayTests
# The layer policy (docs/adaptation.md): the subscriber's downlink capped at 400 and 100 kbit/s,
# without audio fallback, camera off/on, preferred resolution. Caps held 22 s (60 s by hand with
# CALLSCOPE_ADAPT_HOLD=60). The audio subscription, preferred resolution and camera scenarios share
# one call (33.2-34.4 s in four runs, 49.0 s as three calls). 130.8 s (146.3 s in the last CI run
# before; 2026-12-02, machine shared).
netns_suite 400 RealAdaptationTests
# A publisher that stops sending is not my network (docs/network-condition.md, issue 23 item 1):
# Alice's uplink dropped for 7 s, then her Chromium killed with SIGKILL, with and without sender
# stats; Bob's subscriber must say `remote`, never blame its downlink. 54-61 s measured (12 runs).
netns_suite 180 RealPublisherStopTests
# The layer policy without sender stats (docs/adaptation.md): one layer starved by a 100 kbit/s
# cap for 10 s, paused and probed back. 37 s.
netns_suite 180 RealAdaptationWithoutSenderStatsTests
# A renderer on Bob's subscriber through a 400 kbit/s step-down, audio fallback and back, an 8 s
# blackout, and 200 ms per frame (docs/video.md, "On real calls"): one call, 50 s measured; the
# 400 kbit/s cap is held until 30 smaller frames were rendered (12 s at most): 49.1-50.6 s in
# three runs in a row (2026-12-02, machine shared).
netns_suite 180 RealRendererTests
# Received-video truth (docs/video.md): a marker clip as Alice's camera, each received frame's
# index read back; PSNR of the top layer on a clean 6 s, and an 8 s blackout's frame-measured
# stalls against WebRTC's freeze/pause counters. One call, 25.5-35.7 s measured (3 runs, loaded machine).
netns_suite 120 RealVideoTruthTests
# A real call through the rig, its peers `callscope call` processes of the debug build above: the
# engine must see a publisher uplink cap (Rig/ci_smoke.sh, Rig/README.md). ~43 s.
bash Rig/ci_smoke.sh
