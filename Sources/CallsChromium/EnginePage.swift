/// The page the Chromium engine loads: it owns the `RTCPeerConnection`s and queues their events.
///
/// Every command runs to completion without waiting on the network (chromedriver runs one
/// command at a time per session, so a command that waited would hold up every other one), and
/// every reply carries the events queued so far, in order.
enum EnginePage {
    static let html = """
    <!doctype html>
    <html><head><meta charset="utf-8"><title>CallScope media engine</title></head>
    <body><script>
    \(framePumpScript)
    </script><script>
    \(script)
    </script></body></html>
    """

    static let script = #"""
    'use strict';
    (() => {
      const MAX_QUEUED = 5000;
      const pcs = new Map();       // id -> {pc, channels: Map(label -> RTCDataChannel), media: []}
      const queue = [];
      let droppedEvents = 0;
      function emit(event) {
        if (queue.length >= MAX_QUEUED) { queue.shift(); droppedEvents++; }
        queue.push(event);
      }
      const frames = window.callscopeFramePump(emit);
      function entry(id) {
        const e = pcs.get(id);
        if (!e) throw new Error('unknown peer connection ' + id);
        return e;
      }
      function wireChannel(id, e, dc) {
        e.channels.set(dc.label, dc);
        dc.onopen = () => emit({ kind: 'dataChannelOpen', pc: id, label: dc.label });
        dc.onmessage = m => {
          if (typeof m.data === 'string') emit({ kind: 'dataChannelMessage', pc: id, label: dc.label, text: m.data });
          else emit({ kind: 'dropped', reason: 'binary data-channel message on ' + dc.label });
        };
      }
      const commands = {
        make(id, config) {
          const servers = config.iceServers.length
            ? [{ urls: config.iceServers, username: config.username || undefined, credential: config.credential || undefined }] : [];
          const pc = new RTCPeerConnection({ iceServers: servers, iceTransportPolicy: config.iceTransportPolicy || 'all',
                                            bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' });
          const e = { pc, channels: new Map(), media: [], sinks: [], remoteTracks: [], pumps: [], frameSink: null };
          pcs.set(id, e);
          pc.onicecandidate = ev => emit({ kind: 'candidate', pc: id, candidate: ev.candidate
            ? { candidate: ev.candidate.candidate, sdpMid: ev.candidate.sdpMid, sdpMLineIndex: ev.candidate.sdpMLineIndex } : null });
          pc.oniceconnectionstatechange = () => emit({ kind: 'iceConnectionState', pc: id, state: pc.iceConnectionState });
          pc.onconnectionstatechange = () => emit({ kind: 'connectionState', pc: id, state: pc.connectionState });
          pc.onsignalingstatechange = () => emit({ kind: 'signalingState', pc: id, state: pc.signalingState });
          pc.ontrack = ev => {
            // Played (muted) as an app plays it, so the receive pipeline runs as in an app: an
            // audio track nobody plays is never pulled from its jitter buffer
            // (jitterBufferEmittedCount and totalSamplesReceived stay 0).
            const sink = document.createElement(ev.track.kind === 'video' ? 'video' : 'audio');
            sink.autoplay = true; sink.muted = true;
            sink.srcObject = new MediaStream([ev.track]);
            document.body.appendChild(sink);
            sink.play().catch(() => {});
            e.sinks.push(sink);
            if (ev.track.kind === 'video') {
              e.remoteTracks = e.remoteTracks.filter(t => t.readyState !== 'ended').concat([ev.track]);
              frames.remoteTrack(id, e, ev.track);
            }
            emit({ kind: 'track', pc: id, trackKind: ev.track.kind, mid: ev.transceiver ? ev.transceiver.mid : null });
          };
          pc.ondatachannel = ev => wireChannel(id, e, ev.channel);
          return null;
        },
        close(id) {
          const e = pcs.get(id);
          if (!e) return null;
          pcs.delete(id);
          for (const track of e.media) track.stop();
          frames.closed(e);
          for (const sink of e.sinks) { sink.srcObject = null; sink.remove(); }
          e.pc.close();
          emit({ kind: 'signalingState', pc: id, state: 'closed' });
          return null;
        },
        async addLocalMedia(id, s) {
          const e = entry(id);
          const stream = await navigator.mediaDevices.getUserMedia({
            audio: s.audio,
            video: s.video ? { width: { exact: s.width }, height: { exact: s.height }, frameRate: { ideal: s.frameRate } } : false,
          });
          e.media.push(...stream.getTracks());
          for (const track of stream.getVideoTracks()) frames.localTrack(id, e, track);
          for (const track of stream.getAudioTracks()) {
            e.pc.addTransceiver(track, { direction: 'sendonly', streams: [stream],
              sendEncodings: [s.audioMaxBitrate ? { maxBitrate: s.audioMaxBitrate } : {}] });
          }
          for (const track of stream.getVideoTracks()) {
            const encodings = s.encodings.map(l => ({ rid: l.rid, active: true, scaleResolutionDownBy: l.scale, maxBitrate: l.maxBitrate }));
            const transceiver = e.pc.addTransceiver(track, { direction: 'sendonly', streams: [stream],
              sendEncodings: encodings.length ? encodings : undefined });
            if (s.codec) {
              const codecs = RTCRtpSender.getCapabilities('video').codecs;
              const wanted = codecs.filter(c => c.mimeType.toLowerCase() === 'video/' + s.codec.toLowerCase());
              const support = codecs.filter(c => /rtx|red|ulpfec/i.test(c.mimeType));
              if (wanted.length) transceiver.setCodecPreferences(wanted.concat(support));
            }
          }
          return null;
        },
        async createOffer(id, iceRestart) {
          const offer = await entry(id).pc.createOffer({ iceRestart });
          return { type: offer.type, sdp: offer.sdp };
        },
        async setLocal(id, d) {
          await entry(id).pc.setLocalDescription({ type: d.type, sdp: d.sdp });
          return null;
        },
        async createAnswer(id) {
          const pc = entry(id).pc;
          await pc.setLocalDescription(await pc.createAnswer());
          return { type: pc.localDescription.type, sdp: pc.localDescription.sdp };
        },
        async setRemote(id, d) {
          await entry(id).pc.setRemoteDescription({ type: d.type, sdp: d.sdp });
          return null;
        },
        async addCandidate(id, c) {
          await entry(id).pc.addIceCandidate(c === null ? { candidate: '' } : c);
          return null;
        },
        openDataChannel(id, label) {
          const e = entry(id);
          wireChannel(id, e, e.pc.createDataChannel(label, { ordered: true }));
          return null;
        },
        send(id, label, text) {
          const dc = entry(id).channels.get(label);
          if (!dc || dc.readyState !== 'open') throw new Error('data channel ' + label + ' is not open');
          dc.send(text);
          return null;
        },
        setTracksEnabled(id, kind, enabled) {
          const pc = entry(id).pc;
          for (const t of pc.getTransceivers()) {
            for (const track of [t.sender.track, t.receiver.track]) if (track && track.kind === kind) track.enabled = enabled;
          }
          return null;
        },
        async stats(id) {
          const report = await entry(id).pc.getStats();
          return JSON.stringify([...report.values()]);
        },
        setFrameSink(id, sinkId, url) {
          frames.setSink(id, entry(id), sinkId, url);
          return null;
        },
        frameChannelStats() { return frames.stats(); },
        drain() { return null; },
      };
      window.callscopeEngine = {
        async run(name, args) {
          let reply;
          try {
            const f = commands[name];
            if (!f) throw new Error('unknown command ' + name);
            reply = { ok: true, result: await f(...args) };
          } catch (error) {
            reply = { ok: false, error: String(error && error.message || error) };
          }
          reply.events = queue.splice(0, queue.length);
          reply.droppedEvents = droppedEvents;
          return reply;
        },
      };
    })();
    """#
}
