#!/usr/bin/env python3
"""Headless Chromium as the browser side of the Jingle <-> SDP work (issue 24 item 3).

Two modes, both under the rig lock (`flock /tmp/callscope-rig.lock ...`):

  jingle_browser.py capture OUTDIR
      Captures real Chromium SDP into OUTDIR (Tests/JingleTests/Fixtures): for each scenario two
      RTCPeerConnections in one page negotiate, each waiting for its ICE gathering, and the offer,
      the answer and the offerer's trickled candidates (RTCIceCandidate.toJSON()) are written.
      Scenarios: `datachannel` (data channel only), `audio-video` (one audio and one video track
      each way), `simulcast` (audio, video sent as three simulcast layers q/h/f, a data channel).

  jingle_browser.py peer
      One side of the real handshake test (Tests/JingleRealTests): JSON lines on stdin/stdout.
      The test sends {"scenario": NAME}; we answer {"offer": SDP} (offerer's local description
      after gathering); the test sends {"remoteOffer": SDP} (the offer after its trip through
      Jingle), given to the answerer's setRemoteDescription; we answer {"answer": SDP}; the test
      sends {"remoteAnswer": SDP} for the offerer; we answer {"result": {...}} once the data
      channel is open both ways (or {"error": ...}). The two peer connections never see each
      other's SDP except through the test's mapping.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Rig"))
from callscope_rig.procs import Processes, configure_log  # noqa: E402
from callscope_rig.webdriver import CHROMIUM_BIN, HEADLESS_ARGS, chrome_capabilities, start_chromedriver  # noqa: E402

# Page-side helpers: tracks without a camera (canvas, oscillator), gathering, the scenarios.
PAGE_SETUP = r"""
window.jb = {};
jb.tracks = function () {
  const canvas = document.createElement('canvas'); canvas.width = 640; canvas.height = 360;
  const context = canvas.getContext('2d');
  let tick = 0;
  setInterval(() => { context.fillStyle = 'rgb(' + (tick++ % 255) + ',80,120)'; context.fillRect(0, 0, 640, 360); }, 33);
  const video = canvas.captureStream(30).getVideoTracks()[0];
  const audioContext = new AudioContext();
  const oscillator = audioContext.createOscillator();
  const destination = audioContext.createMediaStreamDestination();
  oscillator.connect(destination); oscillator.start();
  const audio = destination.stream.getAudioTracks()[0];
  return { audio, video, stream: new MediaStream([audio, video]) };
};
jb.gathered = function (pc) {
  return new Promise(resolve => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(); });
  });
};
jb.opened = function (channel) {
  return new Promise((resolve, reject) => {
    if (channel.readyState === 'open') return resolve();
    channel.onopen = () => resolve();
    setTimeout(() => reject(new Error('data channel not open after 15 s')), 15000);
  });
};
// Sets up the offerer `a` and the answerer `b` for a scenario; returns the offerer's channel.
jb.setup = function (scenario, a, b) {
  let channel = null;
  if (scenario === 'datachannel' || scenario === 'simulcast') channel = a.createDataChannel('callscope');
  if (scenario === 'audio-video') {
    const mine = jb.tracks(), theirs = jb.tracks();
    a.addTrack(mine.audio, mine.stream); a.addTrack(mine.video, mine.stream);
    b.ontrack = null;
    jb.answererTracks = theirs;
  }
  if (scenario === 'simulcast') {
    const mine = jb.tracks();
    a.addTrack(mine.audio, mine.stream);
    a.addTransceiver(mine.video, { direction: 'sendonly', streams: [mine.stream], sendEncodings: [
      { rid: 'q', scaleResolutionDownBy: 4.0 }, { rid: 'h', scaleResolutionDownBy: 2.0 }, { rid: 'f' } ] });
  }
  return channel;
};
// After b's setRemoteDescription: b sends its own tracks back on the offered transceivers.
jb.answererSends = function (scenario, b) {
  if (scenario !== 'audio-video') return;
  const theirs = jb.answererTracks;
  for (const transceiver of b.getTransceivers()) {
    const kind = transceiver.receiver.track.kind;
    transceiver.direction = 'sendrecv';
    transceiver.sender.replaceTrack(kind === 'audio' ? theirs.audio : theirs.video);
    transceiver.sender.setStreams(theirs.stream);
  }
};
// RTP packets received per kind (inbound-rtp), waiting up to 10 s for every kind to have some.
jb.packets = async function (pc, kinds) {
  let counts = {};
  for (let attempt = 0; attempt < 50; attempt++) {
    counts = {};
    (await pc.getStats()).forEach(report => {
      if (report.type === 'inbound-rtp') counts[report.kind] = (counts[report.kind] || 0) + (report.packetsReceived || 0);
    });
    if (kinds.every(kind => counts[kind] > 0)) break;
    await new Promise(resolve => setTimeout(resolve, 200));
  }
  return counts;
};
jb.newPair = function () {
  const config = { bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' };
  return [new RTCPeerConnection(config), new RTCPeerConnection(config)];
};
"""

CAPTURE = r"""
const scenario = arguments[0], done = arguments[arguments.length - 1];
(async () => {
  const [a, b] = jb.newPair();
  const candidates = [];
  a.onicecandidate = event => { if (event.candidate) candidates.push(event.candidate.toJSON()); };
  let received = null;
  b.ondatachannel = event => { received = event.channel; };
  const channel = jb.setup(scenario, a, b);
  await a.setLocalDescription(await a.createOffer());
  await jb.gathered(a);
  await b.setRemoteDescription(a.localDescription);
  jb.answererSends(scenario, b);
  await b.setLocalDescription(await b.createAnswer());
  await jb.gathered(b);
  await a.setRemoteDescription(b.localDescription);
  if (channel) await jb.opened(channel);
  done({ offer: a.localDescription.sdp, answer: b.localDescription.sdp, candidates,
         userAgent: navigator.userAgent, channelOpen: channel ? channel.readyState : null });
  a.close(); b.close();
})().catch(error => done({ error: String(error) }));
"""

OFFER = r"""
const scenario = arguments[0], done = arguments[arguments.length - 1];
(async () => {
  const [a, b] = jb.newPair();
  jb.a = a; jb.b = b; jb.scenario = scenario;
  jb.received = new Promise(resolve => { b.ondatachannel = event => resolve(event.channel); });
  jb.channel = jb.setup(scenario, a, b);
  await a.setLocalDescription(await a.createOffer());
  await jb.gathered(a);
  done({ offer: a.localDescription.sdp });
})().catch(error => done({ error: String(error) }));
"""

ANSWER = r"""
const sdp = arguments[0], done = arguments[arguments.length - 1];
(async () => {
  await jb.b.setRemoteDescription({ type: 'offer', sdp });
  jb.answererSends(jb.scenario, jb.b);
  await jb.b.setLocalDescription(await jb.b.createAnswer());
  await jb.gathered(jb.b);
  done({ answer: jb.b.localDescription.sdp });
})().catch(error => done({ error: 'answerer: ' + String(error) }));
"""

FINISH = r"""
const sdp = arguments[0], done = arguments[arguments.length - 1];
(async () => {
  await jb.a.setRemoteDescription({ type: 'answer', sdp });
  const result = { scenario: jb.scenario };
  if (jb.channel) {
    await jb.opened(jb.channel);
    const received = await jb.received;
    await jb.opened(received);
    const echoed = new Promise(resolve => { jb.channel.onmessage = event => resolve(event.data); });
    received.onmessage = event => received.send('echo:' + event.data);
    jb.channel.send('hello');
    result.echo = await echoed;
  }
  if (jb.scenario !== 'datachannel') {
    // Media must flow through the mapped descriptions: RTP packets received, per kind.
    result.answererPackets = await jb.packets(jb.b, ['audio', 'video']);
    if (jb.scenario === 'audio-video') result.offererPackets = await jb.packets(jb.a, ['audio', 'video']);
  }
  result.offererIce = jb.a.iceConnectionState; result.answererIce = jb.b.iceConnectionState;
  result.offererReceivers = jb.a.getReceivers().map(r => r.track.kind + ':' + r.track.readyState);
  result.answererReceivers = jb.b.getReceivers().map(r => r.track.kind + ':' + r.track.readyState);
  done({ result });
})().catch(error => done({ error: 'offerer: ' + String(error) }));
"""


def start_browser(workdir: str, procs: Processes):
    _, wd = start_chromedriver(procs, "chromedriver-jingle", workdir)
    args = HEADLESS_ARGS + [f"--user-data-dir={os.path.join(workdir, 'profile')}", "--no-first-run",
                            "--autoplay-policy=no-user-gesture-required", "--mute-audio",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-features=WebRtcHideLocalIpsWithMdns,MediaRouter,OptimizationHints,Translate",
                            "--allow-loopback-in-peer-connection"]
    wd.new_session(chrome_capabilities(CHROMIUM_BIN, args), timeout=60)
    wd.set_timeouts(script_ms=30000)
    wd.navigate("about:blank")
    wd.execute(PAGE_SETUP)
    return wd


def capture(outdir: str, wd) -> None:
    os.makedirs(outdir, exist_ok=True)
    for scenario in ("datachannel", "audio-video", "simulcast"):
        value = wd.execute_async(CAPTURE, [scenario], timeout=40)
        if "error" in value:
            raise SystemExit(f"{scenario}: {value['error']}")
        for role in ("offer", "answer"):
            with open(os.path.join(outdir, f"chromium-{scenario}-{role}.sdp"), "w", newline="") as f:
                f.write(value[role])
        with open(os.path.join(outdir, f"chromium-{scenario}-candidates.json"), "w") as f:
            json.dump(value["candidates"], f, indent=1)
            f.write("\n")
        print(f"{scenario}: offer {len(value['offer'])} B, answer {len(value['answer'])} B, "
              f"{len(value['candidates'])} trickled candidates, channel {value['channelOpen']}; {value['userAgent']}")


def peer(wd) -> None:
    def reply(value) -> None:
        sys.stdout.write(json.dumps(value) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        request = json.loads(line)
        if "scenario" in request:
            reply(wd.execute_async(OFFER, [request["scenario"]], timeout=40))
        elif "remoteOffer" in request:
            reply(wd.execute_async(ANSWER, [request["remoteOffer"]], timeout=40))
        elif "remoteAnswer" in request:
            reply(wd.execute_async(FINISH, [request["remoteAnswer"]], timeout=40))
        elif request.get("quit"):
            return


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in ("capture", "peer") or (sys.argv[1] == "capture" and len(sys.argv) != 3):
        raise SystemExit("usage: jingle_browser.py capture OUTDIR | jingle_browser.py peer")
    configure_log("jingle-browser")
    procs = Processes()
    with tempfile.TemporaryDirectory(prefix="callscope-jingle-") as workdir:
        try:
            wd = start_browser(workdir, procs)
            try:
                if sys.argv[1] == "capture":
                    capture(sys.argv[2], wd)
                else:
                    peer(wd)
            finally:
                wd.quit()
        finally:
            procs.reap_all()


if __name__ == "__main__":
    main()
