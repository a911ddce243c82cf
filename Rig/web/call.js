// CallScope real-call rig: one side of a Janus VideoRoom call over the Janus HTTP API.
// role=publisher: fake camera + fake audio, 3-layer VP8 simulcast (rid q/h/f), a data channel
//                 carrying a small versioned sender-stats message once per second.
// role=subscriber: subscribes to the first publisher's feed, asks for substream 2 (top).
// The recorder calls window.callscope.collect() via WebDriver execute/async once per second.
'use strict';

const params = new URLSearchParams(location.search);
const ROLE = params.get('role') || 'publisher';
const ROOM = parseInt(params.get('room') || '1234', 10);
const JANUS = params.get('janus') || 'http://127.0.0.1:8088/janus';
const WIDTH = parseInt(params.get('w') || '960', 10);
const HEIGHT = parseInt(params.get('h') || '540', 10);
const FPS = parseInt(params.get('fps') || '30', 10);
const SENDER_STATS = params.get('senderstats') !== '0';
// Per-layer caps (bit/s) for q (1/4), h (1/2), f (full).
const LAYER_BITRATES = (params.get('bitrates') || '150000,500000,1500000').split(',').map(Number);
const AUDIO_MAX_BITRATE = 64000;

const state = {
  role: ROLE, phase: 'starting', error: null, sessionId: null, handleId: null,
  feedId: null, publisherId: null, janusEvents: 0, dcOpen: false, dcMessagesIn: 0,
  videoMid: null, topLayer: `${WIDTH}x${HEIGHT}`, captureSettings: null,
};
const pcs = new Map();      // label -> RTCPeerConnection
let pcCounter = 0;
const pendingEvents = [];   // drained by collect()
const MAX_PENDING_EVENTS = 500;

function log(msg) {
  const line = `${new Date().toISOString()} ${msg}`;
  console.log(line);
  const el = document.getElementById('log');
  if (el) { el.textContent = (line + '\n' + el.textContent).slice(0, 20000); }
}
function setPhase(p) {
  state.phase = p;
  const el = document.getElementById('status');
  if (el) el.textContent = `${ROLE}: ${p}`;
  pushEvent('phase', { phase: p });
}
function pushEvent(name, data) {
  if (pendingEvents.length >= MAX_PENDING_EVENTS) pendingEvents.shift();
  pendingEvents.push({ t: Date.now(), event: name, data: data || {} });
}
function fail(e) {
  state.error = String(e && e.stack || e);
  setPhase('error');
  log('ERROR ' + state.error);
}

// ---------------------------------------------------------------- Janus HTTP API
function tx() { return Math.random().toString(36).slice(2, 14); }

async function janusPost(path, body, timeoutMs = 10000) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const r = await fetch(JANUS + path, {
      method: 'POST', body: JSON.stringify(Object.assign({ transaction: tx() }, body)),
      headers: { 'Content-Type': 'application/json' }, signal: ctl.signal,
    });
    const j = await r.json();
    if (j.janus === 'error') throw new Error(`janus error ${JSON.stringify(j.error)}`);
    return j;
  } finally { clearTimeout(timer); }
}

// Waiters for asynchronous plugin events, matched by transaction or predicate.
const waiters = [];
function waitEvent(pred, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const w = { pred, resolve, reject };
    w.timer = setTimeout(() => {
      const i = waiters.indexOf(w); if (i >= 0) waiters.splice(i, 1);
      reject(new Error(`timeout waiting for ${what}`));
    }, timeoutMs);
    waiters.push(w);
  });
}
function dispatch(ev) {
  state.janusEvents++;
  const kind = ev.janus;
  if (kind === 'keepalive' || kind === 'ack') return;
  const pd = ev.plugindata && ev.plugindata.data;
  // Events worth replaying.
  if (kind === 'webrtcup' || kind === 'hangup' || kind === 'slowlink' || kind === 'media' || kind === 'detached') {
    const d = Object.assign({}, ev); delete d.session_id; delete d.sender; delete d.transaction;
    pushEvent('janus-' + kind, d);
  }
  if (pd && pd.videoroom === 'event' && (pd.substream !== undefined || pd.temporal !== undefined)) {
    pushEvent('layer-switch', { mid: pd.mid, substream: pd.substream, temporal: pd.temporal });
  }
  for (let i = 0; i < waiters.length; i++) {
    const w = waiters[i];
    let ok = false;
    try { ok = w.pred(ev, pd); } catch (e) { ok = false; }
    if (ok) { waiters.splice(i, 1); clearTimeout(w.timer); w.resolve(ev); return; }
  }
}

let polling = true;
async function longPoll() {
  let failures = 0;
  while (polling && state.sessionId) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 40000);
    try {
      const r = await fetch(`${JANUS}/${state.sessionId}?rid=${Date.now()}&maxev=1`, { signal: ctl.signal, cache: 'no-store' });
      const j = await r.json();
      failures = 0;
      if (Array.isArray(j)) j.forEach(dispatch); else dispatch(j);
    } catch (e) {
      failures++;
      pushEvent('signaling-poll-error', { error: String(e), failures });
      await new Promise(res => setTimeout(res, Math.min(1000 * failures, 5000)));
    } finally { clearTimeout(timer); }
  }
}
function keepalives() {
  setInterval(() => {
    if (state.sessionId) janusPost(`/${state.sessionId}`, { janus: 'keepalive' }, 5000)
      .catch(e => pushEvent('signaling-keepalive-error', { error: String(e) }));
  }, 20000);
}

async function janusConnect() {
  const c = await janusPost('', { janus: 'create' });
  state.sessionId = c.data.id;
  const a = await janusPost(`/${state.sessionId}`, { janus: 'attach', plugin: 'janus.plugin.videoroom', opaque_id: 'callscope-' + ROLE });
  state.handleId = a.data.id;
  longPoll();
  keepalives();
  log(`janus session ${state.sessionId} handle ${state.handleId}`);
}
async function pluginMessage(body, jsep, waitPred, timeoutMs, what) {
  const t = tx();
  const p = waitPred ? waitEvent((ev, pd) => ev.transaction === t && waitPred(ev, pd), timeoutMs || 20000, what || body.request) : null;
  const msg = { janus: 'message', transaction: t, body };
  if (jsep) msg.jsep = jsep;
  const r = await janusPost(`/${state.sessionId}/${state.handleId}`, msg);
  if (r.janus === 'success') {           // synchronous plugin answer
    if (p) { /* nothing asynchronous will come */ }
    return r;
  }
  return p ? await p : r;
}
function trickle(candidate) {
  const c = candidate ? { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex } : { completed: true };
  return janusPost(`/${state.sessionId}/${state.handleId}`, { janus: 'trickle', candidate: c })
    .catch(e => pushEvent('signaling-trickle-error', { error: String(e) }));
}

// ---------------------------------------------------------------- peer connection
function newPc(prefix) {
  const label = `${prefix}-${++pcCounter}`;
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' });
  pcs.set(label, pc);
  // Local candidates are held back until our SDP has reached Janus (a trickle arriving before
  // the subscriber's answer made Janus treat the answer as a renegotiation and skip SCTP setup).
  const held = [];
  pc.trickleReady = false;
  pc.flushTrickle = () => { pc.trickleReady = true; held.splice(0).forEach(c => trickle(c)); };
  pc.onicecandidate = ev => { if (pc.trickleReady) trickle(ev.candidate); else held.push(ev.candidate); };
  pc.oniceconnectionstatechange = () => { pushEvent('ice-connection-state', { pc: label, state: pc.iceConnectionState }); log(`${label} ice ${pc.iceConnectionState}`); };
  pc.onconnectionstatechange = () => { pushEvent('connection-state', { pc: label, state: pc.connectionState }); log(`${label} conn ${pc.connectionState}`); };
  pc.onicegatheringstatechange = () => pushEvent('ice-gathering-state', { pc: label, state: pc.iceGatheringState });
  pc.onsignalingstatechange = () => pushEvent('signaling-state', { pc: label, state: pc.signalingState });
  return { pc, label };
}

// ---------------------------------------------------------------- publisher
let dataChannel = null;
async function runPublisher() {
  setPhase('getUserMedia');
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: true,
    video: { width: { exact: WIDTH }, height: { exact: HEIGHT }, frameRate: { ideal: FPS } },
  });
  const vtrack = stream.getVideoTracks()[0];
  const atrack = stream.getAudioTracks()[0];
  state.captureSettings = vtrack.getSettings();
  document.getElementById('local').srcObject = stream;
  log(`capture ${JSON.stringify(state.captureSettings)}`);

  setPhase('janus-connect');
  await janusConnect();
  const joined = await pluginMessage({ request: 'join', ptype: 'publisher', room: ROOM, display: 'publisher' }, null,
    (ev, pd) => pd && (pd.videoroom === 'joined' || pd.error), 15000, 'publisher join');
  const jd = joined.plugindata.data;
  if (jd.error) throw new Error('join failed: ' + jd.error);
  state.publisherId = jd.id;
  log(`joined room ${ROOM} as ${jd.id}`);

  const { pc, label } = newPc('pub');
  pc.addTransceiver(atrack, { direction: 'sendonly', streams: [stream], sendEncodings: [{ maxBitrate: AUDIO_MAX_BITRATE }] });
  const vt = pc.addTransceiver(vtrack, {
    direction: 'sendonly', streams: [stream],
    // Janus 1.1 maps the rids in a=simulcast order to substreams high-to-low (first rid =
    // substream 2), so list the full-resolution layer first: a=simulcast:send f;h;q.
    sendEncodings: [
      { rid: 'f', active: true, scaleResolutionDownBy: 1, maxBitrate: LAYER_BITRATES[2] },
      { rid: 'h', active: true, scaleResolutionDownBy: 2, maxBitrate: LAYER_BITRATES[1] },
      { rid: 'q', active: true, scaleResolutionDownBy: 4, maxBitrate: LAYER_BITRATES[0] },
    ],
  });
  // Prefer VP8.
  try {
    const caps = RTCRtpSender.getCapabilities('video').codecs;
    const vp8 = caps.filter(c => /vp8/i.test(c.mimeType));
    const rest = caps.filter(c => /rtx|red|ulpfec/i.test(c.mimeType));
    vt.setCodecPreferences(vp8.concat(rest));
  } catch (e) { log('setCodecPreferences: ' + e); }
  dataChannel = pc.createDataChannel('callscope', { ordered: true });
  dataChannel.onopen = () => { state.dcOpen = true; pushEvent('datachannel-open', { pc: label, label: dataChannel.label }); };
  dataChannel.onclose = () => { state.dcOpen = false; pushEvent('datachannel-close', { pc: label }); };

  setPhase('offer');
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  const ansP = pluginMessage({ request: 'publish', audio: true, video: true, data: true, display: 'publisher' },
    { type: offer.type, sdp: offer.sdp }, (ev, pd) => ev.jsep || (pd && pd.error), 20000, 'publish answer');
  setTimeout(() => pc.flushTrickle(), 0);   // the POST carrying the offer is already on its way
  const ans = await ansP;
  if (!ans.jsep) throw new Error('publish failed: ' + JSON.stringify(ans.plugindata));
  await pc.setRemoteDescription(ans.jsep);
  setPhase('published');
  if (SENDER_STATS) setInterval(() => sendSenderStats(pc, vt.sender).catch(e => log('sender-stats ' + e)), 1000);
}

let senderStatsSeq = 0;
async function sendSenderStats(pc, vsender) {
  if (!dataChannel || dataChannel.readyState !== 'open') return;
  const report = await pc.getStats();
  let pair = null, rtt = null, lossMax = 0, lossSeen = false;
  const entries = [...report.values()];
  const transport = entries.find(e => e.type === 'transport');
  if (transport && transport.selectedCandidatePairId) pair = report.get(transport.selectedCandidatePairId);
  if (!pair) pair = entries.find(e => e.type === 'candidate-pair' && e.nominated && e.state === 'succeeded');
  for (const e of entries) {
    if (e.type === 'remote-inbound-rtp') {
      if (typeof e.fractionLost === 'number') { lossMax = Math.max(lossMax, e.fractionLost); lossSeen = true; }
      if (typeof e.roundTripTime === 'number' && rtt === null) rtt = e.roundTripTime;
    }
  }
  if (pair && typeof pair.currentRoundTripTime === 'number') rtt = pair.currentRoundTripTime;
  let allocated = AUDIO_MAX_BITRATE;
  for (const enc of vsender.getParameters().encodings || []) if (enc.active !== false && enc.maxBitrate) allocated += enc.maxBitrate;
  const msg = {
    type: 'callscope-sender-stats', v: 1, seq: ++senderStatsSeq, t: Date.now(),
    connectionMaxAllocatedBitrate: allocated,
    connectionEstimatedBandwidth: pair && typeof pair.availableOutgoingBitrate === 'number' ? pair.availableOutgoingBitrate : null,
    rttMs: rtt === null ? null : Math.round(rtt * 1000),
    lossFraction: lossSeen ? lossMax : null,
  };
  dataChannel.send(JSON.stringify(msg));
}

// ---------------------------------------------------------------- subscriber
async function runSubscriber() {
  // Chromium only exposes hardware-revealing stats (decoderImplementation, powerEfficientDecoder)
  // to a page that captures; hold a fake microphone track (never sent) like a real call app would.
  try {
    state.heldCapture = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks().length > 0;
  } catch (e) { state.heldCapture = false; log('subscriber getUserMedia: ' + e); }
  setPhase('janus-connect');
  await janusConnect();
  setPhase('waiting-publisher');
  let feed = null;
  const deadline = Date.now() + 90000;
  while (!feed && Date.now() < deadline) {
    const r = await pluginMessage({ request: 'listparticipants', room: ROOM });
    const parts = (r.plugindata && r.plugindata.data && r.plugindata.data.participants) || [];
    const p = parts.find(x => x.publisher);
    if (p) feed = p.id; else await new Promise(res => setTimeout(res, 500));
  }
  if (!feed) throw new Error('no publisher in room');
  state.feedId = feed;
  log(`subscribing to feed ${feed}`);

  const attached = await pluginMessage({ request: 'join', ptype: 'subscriber', room: ROOM, streams: [{ feed }] }, null,
    (ev, pd) => pd && (pd.videoroom === 'attached' || pd.error), 20000, 'subscriber attached');
  const ad = attached.plugindata.data;
  if (ad.error || !attached.jsep) throw new Error('subscribe failed: ' + JSON.stringify(ad));
  state.subscribedStreams = (ad.streams || []).map(s => ({ mid: s.mid, type: s.type, codec: s.codec, feed_mid: s.feed_mid }));
  pushEvent('subscribed-streams', { streams: state.subscribedStreams });
  const vstream = (ad.streams || []).find(s => s.type === 'video');
  state.videoMid = vstream ? vstream.mid : null;

  const { pc, label } = newPc('sub');
  const remote = new MediaStream();
  pc.ontrack = ev => {
    remote.addTrack(ev.track);
    const v = document.getElementById('remote');
    v.srcObject = remote; v.play().catch(() => {});
    pushEvent('track', { pc: label, kind: ev.track.kind, mid: ev.transceiver && ev.transceiver.mid });
  };
  const wireDc = dc => {
    dc.onopen = () => { state.dcOpen = true; pushEvent('datachannel-open', { pc: label, label: dc.label }); };
    dc.onclose = () => { state.dcOpen = false; pushEvent('datachannel-close', { pc: label }); };
    dc.onmessage = m => {
      state.dcMessagesIn++;
      if (typeof m.data !== 'string' || m.data.length > 1024) { pushEvent('sender-stats-dropped', { reason: 'size' }); return; }
      try {
        const d = JSON.parse(m.data);
        if (d && d.type === 'callscope-sender-stats') pushEvent('sender-stats', d);
      } catch (e) { pushEvent('sender-stats-dropped', { reason: 'json' }); }
    };
  };
  pc.ondatachannel = ev => wireDc(ev.channel);
  await pc.setRemoteDescription(attached.jsep);
  // Janus only relays data to a subscriber once a data channel is open on its SCTP association,
  // and it waits for the subscriber to open one (as janus.js does): open our own.
  if ((ad.streams || []).some(s => s.type === 'data')) wireDc(pc.createDataChannel('callscope-sub', { ordered: true }));
  const answer = await pc.createAnswer();
  await pc.setLocalDescription(answer);
  const appLines = sdp => sdp.split(/\r?\n/).filter(l => /^m=application|^a=sctp|^a=max-message|^a=setup/.test(l));
  state.sdpDebug = { offer: appLines(attached.jsep.sdp), answer: appLines(answer.sdp) };
  const started = await pluginMessage({ request: 'start', room: ROOM }, { type: answer.type, sdp: answer.sdp },
    (ev, pd) => pd && (pd.started || pd.error), 20000, 'subscriber start');
  pc.flushTrickle();
  if (started.plugindata.data.error) throw new Error('start failed: ' + started.plugindata.data.error);
  setPhase('subscribed');
  await setSubstream(2, 2);
}

async function setSubstream(substream, temporal) {
  const body = { request: 'configure' };
  if (state.videoMid !== null) body.streams = [{ mid: state.videoMid, substream, temporal }];
  else { body.substream = substream; body.temporal = temporal; }
  await pluginMessage(body, null, (ev, pd) => pd && (pd.configured || pd.error), 10000, 'configure');
  pushEvent('substream-requested', { substream, temporal, mid: state.videoMid });
}

// ---------------------------------------------------------------- recorder API
window.callscope = {
  state,
  // Returns {t, pcs:[{pc, report:[...entries]}], events:[...], state}
  async collect() {
    const t = Date.now();
    const out = { t, pcs: [], events: pendingEvents.splice(0, pendingEvents.length), state: Object.assign({}, state) };
    for (const [label, pc] of pcs) {
      try {
        const r = await pc.getStats();
        out.pcs.push({ pc: label, report: [...r.values()] });
      } catch (e) { out.pcs.push({ pc: label, error: String(e), report: [] }); }
    }
    return out;
  },
  // Small status for the recorder's warm-up: the publisher's bandwidth estimate and the
  // subscriber's decoded frames, without draining the event queue.
  async quick() {
    const out = { t: Date.now(), phase: state.phase, aob: null, framesDecoded: null };
    for (const pc of pcs.values()) {
      const r = await pc.getStats();
      for (const e of r.values()) {
        if (e.type === 'candidate-pair' && e.nominated && e.state === 'succeeded' &&
            typeof e.availableOutgoingBitrate === 'number') out.aob = e.availableOutgoingBitrate;
        if (e.type === 'inbound-rtp' && e.kind === 'video') out.framesDecoded = e.framesDecoded || 0;
      }
    }
    return out;
  },
  setSubstream,
  // Subscriber: switches to `substream`, waits until the decoded frames have that layer's size
  // (`width` x `height`), then copies `count` consecutive decoded frames out of the video element
  // (WebCodecs VideoFrame.copyTo: the decoder's own planes, tightly packed). Returns
  // {format, width, height, colorSpace, timestamps, rtpTimestamps (90 kHz, from
  // requestVideoFrameCallback), frames: [base64...]}.
  async captureFrames(count, substream, width, height) {
    const video = document.getElementById('remote');
    await setSubstream(substream, 2);
    const nextFrame = () => new Promise(resolve => video.requestVideoFrameCallback((now, metadata) => resolve(metadata)));
    const deadline = Date.now() + 20000;
    while (video.videoWidth !== width || video.videoHeight !== height) {
      if (Date.now() > deadline) throw new Error(`decoded size stayed ${video.videoWidth}x${video.videoHeight}, wanted ${width}x${height}`);
      await nextFrame();
    }
    const out = { frames: [], timestamps: [], rtpTimestamps: [] };
    while (out.frames.length < count) {
      const metadata = await nextFrame();
      const frame = new VideoFrame(video);
      try {
        if (frame.codedWidth !== width || frame.codedHeight !== height) continue;
        out.format = frame.format;
        out.width = frame.codedWidth; out.height = frame.codedHeight;
        out.colorSpace = frame.colorSpace.toJSON();
        const bytes = new Uint8Array(frame.allocationSize());
        await frame.copyTo(bytes);
        let text = '';
        for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
        out.frames.push(btoa(text));
        out.timestamps.push(frame.timestamp);
        out.rtpTimestamps.push(metadata.rtpTimestamp === undefined ? null : metadata.rtpTimestamp);
      } finally {
        frame.close();
      }
    }
    return out;
  },
  async hangup() {
    polling = false;
    for (const pc of pcs.values()) pc.close();
    if (state.sessionId) await janusPost(`/${state.sessionId}`, { janus: 'destroy' }, 3000).catch(() => {});
  },
};

(ROLE === 'publisher' ? runPublisher() : runSubscriber()).catch(fail);
