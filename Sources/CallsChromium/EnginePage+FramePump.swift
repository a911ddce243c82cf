extension EnginePage {
    /// The page half of the frame channel (`window.callscopeFramePump`): for a peer connection
    /// given a sink, each video track (remote, or the captured local one) is read with a
    /// `MediaStreamTrackProcessor` whose stream is handed to a worker of its own. The worker
    /// copies each `VideoFrame` (`copyTo`, packed, behind a 48-byte header:
    /// ``FrameMessageHeader``) into a buffer reused for the track, sends it as one binary
    /// WebSocket message to the engine's ``FrameChannelServer``, and closes the frame at once
    /// (Chromium stalls its decoder when frames stay open).
    ///
    /// Why a worker: the page's main thread runs every WebDriver command (`getStats()` among
    /// them); with the copies and sends on it, a stats round trip took 70–120 ms instead of
    /// 10–60 (measured, docs/video-chromium.md). Chromium 156 has no `MediaStreamTrackProcessor`
    /// in workers and cannot transfer a track, but it can transfer the processor's stream.
    ///
    /// Chromium 156's `copyTo` cannot convert to I420 (`format` takes only RGB targets,
    /// measured): I420 (libvpx' output, the fake camera's) and NV12 are sent as they are, I420A
    /// without its alpha plane; any other format is a rejected frame. A frame is dropped, and
    /// reported, when the socket already holds more than `MAX_BACKLOG` bytes unsent (a consumer
    /// that cannot keep up), so memory stays bounded.
    static let framePumpScript = #"""
    function callscopeFrameWorker() {
      const HEADER = 48, MAX_BACKLOG = 32 << 20;
      const stats = { frames: 0, bytes: 0, dropped: 0, copyMs: 0, sendMs: 0, formats: {} };
      let pump = null;
      function reject(reason) { stats.dropped++; postMessage({ kind: 'rejected', reason }); }
      async function send(frame) {
        const ws = pump.ws;
        if (ws.readyState !== WebSocket.OPEN) {
          if (ws.readyState !== WebSocket.CONNECTING) reject('frame channel closed');
          return;   // frames before the channel opened are not counted: the sink sees the stream from its start
        }
        if (ws.bufferedAmount > MAX_BACKLOG) { reject('frame channel backlog over ' + MAX_BACKLOG + ' bytes'); return; }
        stats.formats[frame.format] = (stats.formats[frame.format] || 0) + 1;
        const format = frame.format === 'I420' || frame.format === 'I420A' ? 0 : frame.format === 'NV12' ? 1 : -1;
        if (format < 0) { reject('pixel format ' + frame.format + ' is not I420 or NV12'); return; }
        const started = performance.now();
        const w = frame.visibleRect.width, h = frame.visibleRect.height, cw = (w + 1) >> 1, ch = (h + 1) >> 1;
        const planes = format === 0 ? [[w, h], [cw, ch], [cw, ch]] : [[w, h], [2 * cw, ch]];
        const planeCount = planes.length;
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
        for (let i = 0; i < 3; i++) view.setUint32(32 + 4 * i, i < planeCount ? planes[i][0] : 0, true);
        view.setUint32(44, 0, true);
        const copied = performance.now();
        ws.send(sent === size ? pump.buffer : new Uint8Array(pump.buffer, 0, sent));
        stats.copyMs += copied - started;
        stats.sendMs += performance.now() - copied;
        stats.frames++;
        stats.bytes += sent - HEADER;
      }
      onmessage = async (message) => {
        if (message.data.stop) {
          if (pump && !pump.stopped) { pump.stopped = true; pump.reader.cancel().catch(() => {}); pump.ws.close(); }
          return;
        }
        const { readable, url, sinkId, source } = message.data;
        const ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        pump = { ws, reader: readable.getReader(), sinkId, source, stopped: false, buffer: null };
        ws.onclose = () => { if (!pump.stopped) postMessage({ kind: 'failed', reason: 'frame channel closed by the engine' }); };
        const timer = setInterval(() => postMessage({ kind: 'stats', stats }), 500);
        try {
          for (;;) {
            const { value: frame, done } = await pump.reader.read();
            if (done) break;
            try { if (!pump.stopped) await send(frame); } finally { frame.close(); }
          }
        } catch (error) {
          if (!pump.stopped) postMessage({ kind: 'failed', reason: String(error && error.message || error) });
        }
        clearInterval(timer);
        pump.stopped = true;
        ws.close();
        postMessage({ kind: 'stats', stats, final: true });
        close();
      };
    }

    window.callscopeFramePump = (emit) => {
      const workerURL = URL.createObjectURL(new Blob(['(' + callscopeFrameWorker.toString() + ')()'], { type: 'text/javascript' }));
      const retired = { frames: 0, bytes: 0, dropped: 0, copyMs: 0, sendMs: 0, formats: {} };
      const live = new Set();
      function add(total, s) {
        for (const key of ['frames', 'bytes', 'dropped', 'copyMs', 'sendMs']) total[key] += s[key];
        for (const [format, count] of Object.entries(s.formats)) total.formats[format] = (total.formats[format] || 0) + count;
      }
      function stop(pump) {
        if (pump.stopped) return;
        pump.stopped = true;
        pump.worker.postMessage({ stop: true });
        // The worker ends itself once its reader is cancelled; this is the backstop.
        setTimeout(() => pump.worker.terminate(), 5000);
      }
      function start(id, e, track, source) {
        if (!e.frameSink || track.kind !== 'video' || track.readyState === 'ended') return;
        if (e.pumps.some(p => p.track === track && !p.stopped)) return;
        const processor = new MediaStreamTrackProcessor({ track, maxBufferSize: 4 });
        const worker = new Worker(workerURL);
        const pump = { track, worker, stopped: false, stats: null };
        const sourceName = source === 1 ? 'localPreview' : 'remote';
        worker.onmessage = message => {
          const data = message.data;
          if (data.kind === 'stats') {
            pump.stats = data.stats;
            if (data.final && live.delete(pump)) add(retired, data.stats);
          } else if (data.kind === 'rejected') {
            emit({ kind: 'videoFrameRejected', pc: id, source: sourceName, reason: data.reason });
          } else if (data.kind === 'failed' && !pump.stopped) {
            emit({ kind: 'dropped', reason: 'frame pump of ' + id + ' (' + sourceName + '): ' + data.reason });
          }
        };
        worker.onerror = event => emit({ kind: 'dropped', reason: 'frame worker of ' + id + ': ' + event.message });
        live.add(pump);
        e.pumps.push(pump);
        worker.postMessage({ readable: processor.readable, url: e.frameSink.url, sinkId: e.frameSink.id, source }, [processor.readable]);
      }
      return {
        // Every pump's counters, finished and running.
        stats() {
          const total = JSON.parse(JSON.stringify(retired));
          for (const pump of live) if (pump.stats) add(total, pump.stats);
          return total;
        },
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
