// CallScope real-call rig: one side of a Janus VideoRoom call over the Janus HTTP API.
// role=publisher: fake camera + fake audio, 3-layer VP8 simulcast (rid q/h/f), a data channel
//                 carrying a small versioned sender-stats message once per second.
// role=subscriber: subscribes to the feeds of the publishers named in `publishers` (their
//                 display names = peer labels), either one peer connection (Janus subscriber
//                 handle) per feed (`subconn=per-feed`) or one multistream connection carrying
//                 all feeds (`subconn=multistream`), and asks for substream 2 (top) of each.
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
// This page's peer label (the publisher's Janus display name, and the `publisher` field of its
// sender-stats messages): `publisher` with one publisher, `publisher-a`, `publisher-b`, ... with more.
const PEER = params.get('peer') || ROLE;
// Subscriber: the publishers to subscribe to (display names, in order) and how.
const PUBLISHERS = (params.get('publishers') || 'publisher').split(',').filter(x => x);
const SUBSCRIBER_CONNECTIONS = params.get('subconn') === 'multistream' ? 'multistream' : 'per-feed';
// Per-layer caps (bit/s) for q (1/4), h (1/2), f (full).
const LAYER_BITRATES = (params.get('bitrates') || '150000,500000,1500000').split(',').map(Number);
const AUDIO_MAX_BITRATE = 64000;

const state = {
  role: ROLE, peer: PEER, phase: 'starting', error: null, sessionId: null, handleId: null,
  feedId: null, publisherId: null, janusEvents: 0, dcOpen: false, dcMessagesIn: 0,
  videoMid: null, topLayer: `${WIDTH}x${HEIGHT}`, captureSettings: null,
  subscriberConnections: SUBSCRIBER_CONNECTIONS, feeds: {}, senderStatsIn: {},
};
const pcs = new Map();      // label -> RTCPeerConnection
const handlePc = new Map(); // Janus handle id -> label of the peer connection it negotiates
const handleFeeds = new Map(); // Janus subscriber handle id -> the feeds it subscribes to
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
// `pc` (optional): the label of the peer connection the event is about (a top-level `pc` in the
// recorded event line).
function pushEvent(name, data, pc) {
  if (pendingEvents.length >= MAX_PENDING_EVENTS) pendingEvents.shift();
  const ev = { t: Date.now(), event: name, data: data || {} };
  if (pc) ev.pc = pc;
  pendingEvents.push(ev);
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
  const pcLabel = handlePc.get(ev.sender);
  // Events worth replaying.
  if (kind === 'webrtcup' || kind === 'hangup' || kind === 'slowlink' || kind === 'media' || kind === 'detached') {
    const d = Object.assign({}, ev); delete d.session_id; delete d.sender; delete d.transaction;
    pushEvent('janus-' + kind, d, pcLabel);
  }
  if (pd && pd.videoroom === 'event' && (pd.substream !== undefined || pd.temporal !== undefined)) {
    pushEvent('layer-switch', { mid: pd.mid, substream: pd.substream, temporal: pd.temporal }, pcLabel);
  }
  // Which feed is behind which mid of a subscriber connection: on `attached`, and on `updated`
  // (a renegotiated subscription).
  if (pd && (pd.videoroom === 'attached' || pd.videoroom === 'updated') && Array.isArray(pd.streams) && pcLabel) {
    pushEvent('subscriber-streams', { streams: pd.streams.map(x => streamIdentity(x, handleFeeds.get(ev.sender))) }, pcLabel);
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
  state.handleId = await janusAttach();
  longPoll();
  keepalives();
  log(`janus session ${state.sessionId} handle ${state.handleId}`);
}
// A new VideoRoom handle in our session (one per publisher or subscriber connection).
async function janusAttach() {
  const a = await janusPost(`/${state.sessionId}`, { janus: 'attach', plugin: 'janus.plugin.videoroom', opaque_id: 'callscope-' + PEER });
  return a.data.id;
}
function pluginMessage(body, jsep, waitPred, timeoutMs, what) {
  return handleMessage(state.handleId, body, jsep, waitPred, timeoutMs, what);
}
async function handleMessage(handle, body, jsep, waitPred, timeoutMs, what) {
  const t = tx();
  const p = waitPred ? waitEvent((ev, pd) => ev.transaction === t && waitPred(ev, pd), timeoutMs || 20000, what || body.request) : null;
  const msg = { janus: 'message', transaction: t, body };
  if (jsep) msg.jsep = jsep;
  const r = await janusPost(`/${state.sessionId}/${handle}`, msg);
  if (r.janus === 'success') {           // synchronous plugin answer
    if (p) { /* nothing asynchronous will come */ }
    return r;
  }
  return p ? await p : r;
}
function trickle(handle, candidate) {
  const c = candidate ? { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex } : { completed: true };
  return janusPost(`/${state.sessionId}/${handle}`, { janus: 'trickle', candidate: c })
    .catch(e => pushEvent('signaling-trickle-error', { error: String(e) }));
}

// ---------------------------------------------------------------- peer connection
// A peer connection negotiated on Janus handle `handle`, recorded as `label`.
function newPc(label, handle) {
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' });
  pcs.set(label, pc);
  handlePc.set(handle, label);
  // Local candidates are held back until our SDP has reached Janus (a trickle arriving before
  // the subscriber's answer made Janus treat the answer as a renegotiation and skip SCTP setup).
  const held = [];
  pc.trickleReady = false;
  pc.flushTrickle = () => { pc.trickleReady = true; held.splice(0).forEach(c => trickle(handle, c)); };
  pc.onicecandidate = ev => { if (pc.trickleReady) trickle(handle, ev.candidate); else held.push(ev.candidate); };
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
  const joined = await pluginMessage({ request: 'join', ptype: 'publisher', room: ROOM, display: PEER }, null,
    (ev, pd) => pd && (pd.videoroom === 'joined' || pd.error), 15000, 'publisher join');
  const jd = joined.plugindata.data;
  if (jd.error) throw new Error('join failed: ' + jd.error);
  state.publisherId = jd.id;
  log(`joined room ${ROOM} as ${jd.id}`);

  const { pc, label } = newPc('pub-1', state.handleId);
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
  const ansP = pluginMessage({ request: 'publish', audio: true, video: true, data: true, display: PEER },
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
    type: 'callscope-sender-stats', v: 1, publisher: PEER, seq: ++senderStatsSeq, t: Date.now(),
    connectionMaxAllocatedBitrate: allocated,
    connectionEstimatedBandwidth: pair && typeof pair.availableOutgoingBitrate === 'number' ? pair.availableOutgoingBitrate : null,
    rttMs: rtt === null ? null : Math.round(rtt * 1000),
    lossFraction: lossSeen ? lossMax : null,
  };
  dataChannel.send(JSON.stringify(msg));
}

// ---------------------------------------------------------------- subscriber
// One subscription = one Janus subscriber handle = one peer connection, carrying one feed
// (per-feed) or all of them (multistream).
const subscriptions = [];   // {label, handle, pc, videoMids}
const remoteVideos = [];    // one <video> per remote video track; the first is #remote

// A Janus stream description as the recording's `subscriber-streams` event states it: the
// publisher (its peer label = its display name) behind each mid. Janus names no feed for the
// data stream: on a connection that carries one feed it is that feed's; on a multistream
// connection it carries the data of all feeds and stays `publisher: null`.
function streamIdentity(s, feeds) {
  let feedId = s.feed_id === undefined ? null : s.feed_id;
  if (feedId === null && s.type === 'data' && feeds && feeds.length === 1) feedId = feeds[0].id;
  const feed = feedId !== null ? state.feeds[feedId] : undefined;
  const out = { mid: s.mid, type: s.type, publisher: s.feed_display || (feed && feed.display) || null,
                feed_id: feedId, feed_mid: s.feed_mid === undefined ? null : s.feed_mid };
  if (s.active === false) out.active = false;
  return out;
}

// The subscriber connection label: `sub-1` for the only (or the multistream) connection,
// `sub-a`, `sub-b`, ... for the connection carrying publisher-a, publisher-b, ... (per-feed).
function subscriberLabel(publisherLabel) {
  if (SUBSCRIBER_CONNECTIONS === 'multistream' || PUBLISHERS.length === 1) return 'sub-1';
  return 'sub-' + publisherLabel.split('-').pop();
}

function videoElementFor(track) {
  let v = remoteVideos.length === 0 ? document.getElementById('remote') : null;
  if (!v) { v = document.createElement('video'); v.autoplay = true; v.muted = true; v.playsInline = true; document.body.insertBefore(v, document.getElementById('log')); }
  remoteVideos.push(v);
  v.srcObject = new MediaStream([track]);
  v.play().catch(() => {});
  return v;
}

// Remote audio is played (muted) like the video, so that its receive pipeline runs as in an app.
function playAudio(track) {
  const a = document.createElement('audio');
  a.autoplay = true; a.muted = true;
  a.srcObject = new MediaStream([track]);
  document.body.appendChild(a);
  a.play().catch(() => {});
}

async function runSubscriber() {
  // Chromium only exposes hardware-revealing stats (decoderImplementation, powerEfficientDecoder)
  // to a page that captures; hold a fake microphone track (never sent) like a real call app would.
  try {
    state.heldCapture = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks().length > 0;
  } catch (e) { state.heldCapture = false; log('subscriber getUserMedia: ' + e); }
  setPhase('janus-connect');
  await janusConnect();
  setPhase('waiting-publisher');
  // Every expected publisher (by display name) must be publishing.
  let feeds = null;
  const deadline = Date.now() + 90000;
  while (!feeds && Date.now() < deadline) {
    const r = await pluginMessage({ request: 'listparticipants', room: ROOM });
    const parts = ((r.plugindata && r.plugindata.data && r.plugindata.data.participants) || []).filter(x => x.publisher);
    const found = PUBLISHERS.map(name => parts.find(x => x.display === name));
    if (found.every(x => x)) feeds = found.map(x => ({ id: x.id, display: x.display }));
    else await new Promise(res => setTimeout(res, 500));
  }
  if (!feeds) throw new Error(`not all publishers (${PUBLISHERS.join(', ')}) in room`);
  feeds.forEach(f => { state.feeds[f.id] = f; });
  state.feedId = feeds[0].id;
  log(`subscribing to feeds ${feeds.map(f => `${f.display}=${f.id}`).join(', ')} (${SUBSCRIBER_CONNECTIONS})`);

  if (SUBSCRIBER_CONNECTIONS === 'multistream') {
    await subscribe(state.handleId, 'sub-1', feeds);
  } else {
    for (let i = 0; i < feeds.length; i++) {
      const handle = i === 0 ? state.handleId : await janusAttach();
      await subscribe(handle, subscriberLabel(feeds[i].display), [feeds[i]]);
    }
  }
  state.videoMid = subscriptions[0].videoMids[0] === undefined ? null : subscriptions[0].videoMids[0];
  setPhase('subscribed');
  await setSubstream(2, 2);
}

async function subscribe(handle, label, feeds) {
  handlePc.set(handle, label);          // before the join: its `attached` event names this connection
  handleFeeds.set(handle, feeds);
  const attached = await handleMessage(handle, { request: 'join', ptype: 'subscriber', room: ROOM, streams: feeds.map(f => ({ feed: f.id })) }, null,
    (ev, pd) => pd && (pd.videoroom === 'attached' || pd.error), 20000, 'subscriber attached');
  const ad = attached.plugindata.data;
  if (ad.error || !attached.jsep) throw new Error('subscribe failed: ' + JSON.stringify(ad));
  const streams = ad.streams || [];
  pushEvent('subscribed-streams', { streams: streams.map(s => ({ mid: s.mid, type: s.type, codec: s.codec, feed_mid: s.feed_mid })) }, label);
  const sub = { label, handle, pc: null, videoMids: streams.filter(s => s.type === 'video').map(s => s.mid) };
  subscriptions.push(sub);

  const { pc } = newPc(label, handle);
  sub.pc = pc;
  pc.ontrack = ev => {
    if (ev.track.kind === 'video') videoElementFor(ev.track);
    else playAudio(ev.track);
    pushEvent('track', { pc: label, kind: ev.track.kind, mid: ev.transceiver && ev.transceiver.mid }, label);
  };
  const wireDc = dc => {
    dc.onopen = () => { state.dcOpen = true; pushEvent('datachannel-open', { pc: label, label: dc.label }, label); };
    dc.onclose = () => { state.dcOpen = false; pushEvent('datachannel-close', { pc: label }, label); };
    dc.onmessage = m => {
      state.dcMessagesIn++;
      if (typeof m.data !== 'string' || m.data.length > 1024) { pushEvent('sender-stats-dropped', { reason: 'size' }, label); return; }
      try {
        const d = JSON.parse(m.data);
        if (d && d.type === 'callscope-sender-stats') {
          const from = typeof d.publisher === 'string' ? d.publisher : '?';
          state.senderStatsIn[`${label}/${from}`] = (state.senderStatsIn[`${label}/${from}`] || 0) + 1;
          pushEvent('sender-stats', d, label);
        }
      } catch (e) { pushEvent('sender-stats-dropped', { reason: 'json' }, label); }
    };
  };
  pc.ondatachannel = ev => wireDc(ev.channel);
  await pc.setRemoteDescription(attached.jsep);
  // Janus only relays data to a subscriber once a data channel is open on its SCTP association,
  // and it waits for the subscriber to open one (as janus.js does): open our own.
  if (streams.some(s => s.type === 'data')) wireDc(pc.createDataChannel('callscope-sub', { ordered: true }));
  const answer = await pc.createAnswer();
  await pc.setLocalDescription(answer);
  const appLines = sdp => sdp.split(/\r?\n/).filter(l => /^m=application|^a=sctp|^a=max-message|^a=setup/.test(l));
  state.sdpDebug = { offer: appLines(attached.jsep.sdp), answer: appLines(answer.sdp) };
  const started = await handleMessage(handle, { request: 'start', room: ROOM }, { type: answer.type, sdp: answer.sdp },
    (ev, pd) => pd && (pd.started || pd.error), 20000, 'subscriber start');
  pc.flushTrickle();
  if (started.plugindata.data.error) throw new Error('start failed: ' + started.plugindata.data.error);
}

// Asks Janus for `substream`/`temporal` on every video stream of every subscription.
async function setSubstream(substream, temporal) {
  for (const sub of subscriptions) {
    const body = { request: 'configure' };
    if (sub.videoMids.length) body.streams = sub.videoMids.map(mid => ({ mid, substream, temporal }));
    else { body.substream = substream; body.temporal = temporal; }
    await handleMessage(sub.handle, body, null, (ev, pd) => pd && (pd.configured || pd.error), 10000, 'configure');
    const mid = sub.videoMids.length ? sub.videoMids[0] : null;
    if (sub.videoMids.length > 1) pushEvent('substream-requested', { substream, temporal, mid, mids: sub.videoMids }, sub.label);
    else pushEvent('substream-requested', { substream, temporal, mid }, sub.label);
  }
}

// ---------------------------------------------------------------- recorder API
window.callscope = {
  state,
  // Returns {t, pcs:[{pc, report:[...entries]}], events:[{t, event, data, pc?}...], state}
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
    // framesDecoded: the least of all inbound video streams; videoInbound: how many there are.
    const out = { t: Date.now(), phase: state.phase, aob: null, framesDecoded: null, videoInbound: 0 };
    for (const pc of pcs.values()) {
      const r = await pc.getStats();
      for (const e of r.values()) {
        if (e.type === 'candidate-pair' && e.nominated && e.state === 'succeeded' &&
            typeof e.availableOutgoingBitrate === 'number') out.aob = e.availableOutgoingBitrate;
        if (e.type === 'inbound-rtp' && e.kind === 'video') {
          out.videoInbound++;
          out.framesDecoded = Math.min(out.framesDecoded === null ? Infinity : out.framesDecoded, e.framesDecoded || 0);
        }
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
