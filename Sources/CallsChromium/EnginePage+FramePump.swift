extension EnginePage {
    /// The page half of the frame channel (`window.callscopeFramePump`): for a peer connection
    /// given a sink, each video track (remote, or the captured local one) is read with
    /// `MediaStreamTrackProcessor`, each `VideoFrame` is copied (`copyTo`, packed, behind a
    /// 48-byte header: ``FrameMessageHeader``) into a buffer reused for the track, sent as one
    /// binary WebSocket message to the engine's ``FrameChannelServer``, and closed at once
    /// (Chromium stalls its decoder when frames stay open).
    ///
    /// Chromium 156's `copyTo` cannot convert to I420 (`format` takes only RGB targets,
    /// measured): I420 (libvpx' output, the fake camera's) and NV12 are sent as they are, I420A
    /// without its alpha plane; any other format is a rejected frame. A frame is dropped, and
    /// reported, when the socket already holds more than `MAX_BACKLOG` bytes unsent (a consumer
    /// that cannot keep up), so memory stays bounded.
    static let framePumpScript = #"""
    window.callscopeFramePump = (emit) => {
      const HEADER = 48, MAX_BACKLOG = 8 << 20;
      const stats = { frames: 0, bytes: 0, dropped: 0, copyMs: 0, sendMs: 0, formats: {} };
      function reject(id, source, reason) {
        stats.dropped++;
        emit({ kind: 'videoFrameRejected', pc: id, source: source === 1 ? 'localPreview' : 'remote', reason });
      }
      async function send(pump, frame) {
        const ws = pump.ws;
        if (ws.readyState !== WebSocket.OPEN) {
          if (ws.readyState !== WebSocket.CONNECTING) reject(pump.pc, pump.source, 'frame channel closed');
          return;   // frames before the channel opened are not counted: the sink sees the stream from its start
        }
        if (ws.bufferedAmount > MAX_BACKLOG) { reject(pump.pc, pump.source, 'frame channel backlog over ' + MAX_BACKLOG + ' bytes'); return; }
        stats.formats[frame.format] = (stats.formats[frame.format] || 0) + 1;
        const format = frame.format === 'I420' || frame.format === 'I420A' ? 0 : frame.format === 'NV12' ? 1 : -1;
        if (format < 0) { reject(pump.pc, pump.source, 'pixel format ' + frame.format + ' is not I420 or NV12'); return; }
        const started = performance.now();
        const w = frame.visibleRect.width, h = frame.visibleRect.height, cw = (w + 1) >> 1, ch = (h + 1) >> 1;
        const planes = format === 0 ? [[w, h], [cw, ch], [cw, ch]] : [[w, h], [2 * cw, ch]];
        if (frame.format === 'I420A') planes.push([w, h]);
        const layout = [];
        let size = HEADER;
        for (const [stride, rows] of planes) { layout.push({ offset: size, stride }); size += stride * rows; }
        const sent = frame.format === 'I420A' ? size - w * h : size;
        if (!pump.buffer || pump.buffer.byteLength !== size) pump.buffer = new ArrayBuffer(size);
        await frame.copyTo(pump.buffer, { layout });
        const view = new DataView(pump.buffer, 0, HEADER);
        view.setUint32(0, 0x46565343, true);
        view.setUint8(4, 1); view.setUint8(5, pump.source); view.setUint8(6, format);
        const rtp = frame.metadata ? frame.metadata().rtpTimestamp : undefined;
        view.setUint8(7, rtp === undefined ? 0 : 1);
        view.setUint32(8, pump.sinkId, true);
        view.setUint32(12, w, true); view.setUint32(16, h, true);
        view.setUint32(20, rtp === undefined ? 0 : rtp >>> 0, true);
        view.setBigInt64(24, BigInt(Math.round(frame.timestamp)), true);
        const planeCount = format === 0 ? 3 : 2;
    for (let i = 0; i < 3; i++) view.setUint32(32 + 4 * i, i < planeCount ? planes[i][0] : 0, true);
        view.setUint32(44, 0, true);
        const copied = performance.now();
        ws.send(sent === size ? pump.buffer : new Uint8Array(pump.buffer, 0, sent));
        stats.copyMs += copied - started;
        stats.sendMs += performance.now() - copied;
        stats.frames++;
        stats.bytes += sent - HEADER;
      }
      function stop(pump) {
        if (pump.stopped) return;
        pump.stopped = true;
        pump.reader.cancel().catch(() => {});
        pump.ws.close();
      }
      function start(id, e, track, source) {
        if (!e.frameSink || track.kind !== 'video' || track.readyState === 'ended') return;
        if (e.pumps.some(p => p.track === track && !p.stopped)) return;
        const ws = new WebSocket(e.frameSink.url);
        ws.binaryType = 'arraybuffer';
        const pump = { pc: id, track, source, sinkId: e.frameSink.id, ws, stopped: false, buffer: null,
                       reader: new MediaStreamTrackProcessor({ track, maxBufferSize: 4 }).readable.getReader() };
        ws.onclose = () => { if (!pump.stopped) emit({ kind: 'dropped', reason: 'frame channel of ' + id + ' closed by the engine' }); };
        e.pumps.push(pump);
        (async () => {
          try {
            for (;;) {
              const { value: frame, done } = await pump.reader.read();
              if (done) break;
              try { if (!pump.stopped) await send(pump, frame); } finally { frame.close(); }
            }
          } catch (error) {
            if (!pump.stopped) emit({ kind: 'dropped', reason: 'frame pump of ' + id + ': ' + String(error && error.message || error) });
          }
          stop(pump);
          e.pumps = e.pumps.filter(p => p !== pump);
        })();
      }
      return {
        stats,
        // Sets or clears (sinkId null) the sink of a connection: its pumps restart on the new one.
        setSink(id, e, sinkId, url) {
          for (const pump of e.pumps) stop(pump);
          e.pumps = [];
          e.frameSink = sinkId === null ? null : { id: sinkId, url };
          if (!e.frameSink) return;
          for (const track of e.remoteTracks) start(id, e, track, 0);
          for (const track of e.media) start(id, e, track, 1);
        },
        remoteTrack(id, e, track) { start(id, e, track, 0); },
        localTrack(id, e, track) { start(id, e, track, 1); },
        closed(e) { for (const pump of e.pumps) stop(pump); e.pumps = []; },
      };
    };
    """#
}
