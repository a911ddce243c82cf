import CallScopeCore
import Dispatch

/// Where a subscriber's decoded frames (or a publisher's local preview) go: a ``VideoRenderer``
/// and any number of `AsyncStream`s, each with a bounded queue, and the counts of what was
/// delivered and dropped (``stats``).
///
/// The session asks the engine for frames only while someone listens (a renderer is set or a
/// stream is open), and asks again on every new peer connection (reconnection, republish), so
/// a renderer keeps its frames across them without the app doing anything.
///
/// Bounded delivery: each consumer has at most ``queueLimit`` frames waiting. When a frame
/// arrives and the queue is full, the oldest waiting frame is dropped (the newest picture is
/// the one worth showing) and counted (``VideoFrameDropReason/rendererBusy`` or
/// ``VideoFrameDropReason/streamBusy``). Memory stays bounded however slow the consumer is.
public final class VideoFrameOutput: Sendable {
    /// The default ``queueLimit``: one frame being shown, two waiting.
    public static let defaultQueueLimit = 2

    private struct State {
        var renderer: (any VideoRenderer)?
        var rendererQueue: [CallVideoFrame] = []
        var draining = false
        var queueLimit = VideoFrameOutput.defaultQueueLimit
        var streams: [Int: AsyncStream<CallVideoFrame>.Continuation] = [:]
        var nextStream = 0
        var stats = VideoDeliveryStats()
        var demand: AsyncStream<Void>.Continuation?

        var isWanted: Bool { renderer != nil || !streams.isEmpty }
    }

    private let state = Locked(State())
    /// The renderer's frames are handed over here, one at a time, in order.
    private let rendererQueue: DispatchQueue

    init(label: String) {
        rendererQueue = DispatchQueue(label: "callscope.video.\(label)")
    }

    /// Receives every frame on the output's serial queue (held strongly, as the seed's
    /// `videoRender`); `nil` stops it and drops the frames waiting for it.
    public var renderer: (any VideoRenderer)? {
        get { state.withLock { $0.renderer } }
        set {
            let changed = state.withLock { state -> Bool in
                let was = state.isWanted
                state.renderer = newValue
                if newValue == nil { state.rendererQueue.removeAll() }
                return was != state.isWanted
            }
            if changed { demandChanged() }
        }
    }

    /// How many frames may wait for the renderer, and in each stream made from now on (at
    /// least 1; default ``defaultQueueLimit``).
    public var queueLimit: Int {
        get { state.withLock { $0.queueLimit } }
        set { state.withLock { $0.queueLimit = max(newValue, 1) } }
    }

    /// What was delivered and dropped so far.
    public var stats: VideoDeliveryStats { state.withLock { $0.stats } }

    /// A new stream of every later frame, keeping at most ``queueLimit`` unread frames (the
    /// oldest is dropped and counted when a new one arrives). It finishes when the subscriber
    /// is unsubscribed (the publisher unpublished) or when the reader stops.
    public func frames() -> AsyncStream<CallVideoFrame> {
        let limit = queueLimit
        let (stream, continuation) = AsyncStream<CallVideoFrame>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let (id, changed) = state.withLock { state -> (Int, Bool) in
            let was = state.isWanted
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            return (state.nextStream, was != state.isWanted)
        }
        continuation.onTermination = { [weak self] _ in self?.removeStream(id) }
        if changed { demandChanged() }
        return stream
    }

    private func removeStream(_ id: Int) {
        let changed = state.withLock { state -> Bool in
            let was = state.isWanted
            state.streams[id] = nil
            return was != state.isWanted
        }
        if changed { demandChanged() }
    }

    // MARK: - From the session

    /// Whether anyone listens: the session asks the engine for frames only then.
    var isWanted: Bool { state.withLock { $0.isWanted } }

    /// One signal per change of ``isWanted`` (coalesced: read ``isWanted`` for the value); a
    /// new call finishes the previous stream.
    func demandChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let previous = state.withLock { state -> AsyncStream<Void>.Continuation? in
            defer { state.demand = continuation }
            return state.demand
        }
        previous?.finish()
        return stream
    }

    private func demandChanged() {
        state.withLock { $0.demand }?.yield()
    }

    /// The sink the session hands the engine: queues the frame for every consumer.
    var sink: VideoFrameSink {
        { [weak self] frame in self?.receive(frame) }
    }

    /// Queues `engineFrame` for the renderer (dropping the oldest waiting frame when its queue
    /// is full) and yields it to every stream. Called on an engine thread: returns at once.
    func receive(_ engineFrame: EngineVideoFrame) {
        let size = CallVideoDimensions(width: engineFrame.frame.width, height: engineFrame.frame.height)
        let (frame, streams, startDrain) = state.withLock { state -> (CallVideoFrame, [AsyncStream<CallVideoFrame>.Continuation], Bool) in
            state.stats.framesReceived += 1
            if let last = state.stats.lastSize, last != size { state.stats.sizeChanges += 1 }
            state.stats.lastSize = size
            let frame = CallVideoFrame(frame: engineFrame.frame, captureTimeMicroseconds: engineFrame.captureTimeMicroseconds,
                                       number: state.stats.framesReceived)
            var startDrain = false
            if state.renderer != nil {
                state.rendererQueue.append(frame)
                if state.rendererQueue.count > state.queueLimit {
                    state.rendererQueue.removeFirst()
                    state.stats.dropped[.rendererBusy, default: 0] += 1
                }
                if !state.draining {
                    state.draining = true
                    startDrain = true
                }
            }
            return (frame, Array(state.streams.values), startDrain)
        }
        var streamDrops = 0
        for continuation in streams {
            if case .dropped = continuation.yield(frame) { streamDrops += 1 }
        }
        if streamDrops > 0 { state.withLock { $0.stats.dropped[.streamBusy, default: 0] += streamDrops } }
        if startDrain { rendererQueue.async { [self] in drain() } }
    }

    /// Hands the waiting frames to the renderer, oldest first, until none waits.
    private func drain() {
        while true {
            let next = state.withLock { state -> (CallVideoFrame, any VideoRenderer)? in
                guard let renderer = state.renderer, !state.rendererQueue.isEmpty else {
                    state.draining = false
                    return nil
                }
                return (state.rendererQueue.removeFirst(), renderer)
            }
            guard let (frame, renderer) = next else { return }
            renderer.renderVideoFrame(frame)
            state.withLock { $0.stats.framesRendered += 1 }
        }
    }

    /// The engine rejected a frame: counted, with its reason.
    func rejectFrame(reason: String) {
        state.withLock { state in
            state.stats.dropped[.invalidFrame, default: 0] += 1
            state.stats.lastInvalidFrameReason = reason
        }
    }

    /// Finishes every stream (the subscription or publication ended); the renderer stays.
    func finishStreams() {
        let streams = state.withLock { state -> [AsyncStream<CallVideoFrame>.Continuation] in
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for continuation in streams { continuation.finish() }
    }
}
