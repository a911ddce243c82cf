import CallScopeCore
import Observability

/// What happens to a subscriber, in order (docs/spec/sessions.md §2–3).
public enum CallSubscriberEvent: Hashable, Sendable {
    /// Media flows for the first time.
    case didConnect(CallStream)
    /// The media path was lost; the SDK is reconnecting by itself.
    case didDisconnect(CallStream)
    /// Media flows again after ``didDisconnect(_:)``.
    case didReconnect(CallStream)
    /// Something failed after `subscribe` returned (e.g. a renegotiation).
    case didFail(CallError)
    /// The downlink cannot carry even the lowest layer: the video is about to be switched off
    /// (the reference SDK's `subscriberVideoDisableWarning`, docs/spec/README.md).
    case videoDisableWarning
    /// The warning is over: the lowest layer fits again (`subscriberVideoDisableWarningLifted`).
    case videoDisableWarningLifted
    /// The video stopped (audio keeps coming), and why.
    case videoDisabled(SubscriberVideoEventReason)
    /// The video is back (frames decoded again), and why.
    case videoEnabled(SubscriberVideoEventReason)
    /// The router now forwards this simulcast substream (0 = lowest) and temporal layer: from
    /// the router's event, or from the decoded frames once they have the size of the layer
    /// asked for (the router's events can come late behind a congested downlink).
    case layerChanged(substream: Int, temporal: Int)
}

/// The subscriber delegate. Called in the order ``CallSubscriber/events`` yields.
public protocol CallSubscriberDelegate: AnyObject, Sendable {
    /// Media flows for the first time.
    func subscriberDidConnect(toStream subscriber: CallSubscriber)
    /// The media path was lost; reconnection is under way.
    func subscriberDidDisconnect(fromStream subscriber: CallSubscriber)
    /// Media flows again.
    func subscriberDidReconnect(toStream subscriber: CallSubscriber)
    /// Something failed.
    func subscriber(_ subscriber: CallSubscriber, didFailWithError error: CallError)
    /// The video is about to be switched off for quality.
    func subscriberVideoDisableWarning(_ subscriber: CallSubscriber)
    /// The warning is over without a switch-off.
    func subscriberVideoDisableWarningLifted(_ subscriber: CallSubscriber)
    /// The video stopped, and why.
    func subscriberVideoDisabled(_ subscriber: CallSubscriber, reason: SubscriberVideoEventReason)
    /// The video is back, and why.
    func subscriberVideoEnabled(_ subscriber: CallSubscriber, reason: SubscriberVideoEventReason)
    /// The router now forwards another layer.
    func subscriber(_ subscriber: CallSubscriber, didChangeLayerToSubstream substream: Int, temporal: Int)
}

extension CallSubscriberDelegate {
    /// Default: nothing.
    public func subscriberDidConnect(toStream subscriber: CallSubscriber) {}
    /// Default: nothing.
    public func subscriberDidDisconnect(fromStream subscriber: CallSubscriber) {}
    /// Default: nothing.
    public func subscriberDidReconnect(toStream subscriber: CallSubscriber) {}
    /// Default: nothing.
    public func subscriber(_ subscriber: CallSubscriber, didFailWithError error: CallError) {}
    /// Default: nothing.
    public func subscriberVideoDisableWarning(_ subscriber: CallSubscriber) {}
    /// Default: nothing.
    public func subscriberVideoDisableWarningLifted(_ subscriber: CallSubscriber) {}
    /// Default: nothing.
    public func subscriberVideoDisabled(_ subscriber: CallSubscriber, reason: SubscriberVideoEventReason) {}
    /// Default: nothing.
    public func subscriberVideoEnabled(_ subscriber: CallSubscriber, reason: SubscriberVideoEventReason) {}
    /// Default: nothing.
    public func subscriber(_ subscriber: CallSubscriber, didChangeLayerToSubstream substream: Int, temporal: Int) {}
}

/// Receives one ``CallStream`` (docs/spec/sessions.md §1); hand it to
/// ``CallSession/subscribe(_:)``. The SDK samples its stats every
/// ``CallSessionConfiguration/statsInterval`` into ``statsMonitor``.
public final class CallSubscriber: Sendable {
    /// The stream it receives (its ``CallStream/videoDimensions`` follow the decoded frames).
    public var stream: CallStream { current.withLock { $0 } }
    private let current: Locked<CallStream>
    /// Its stats (docs/spec/README.md: the delegates live on the subscriber object).
    public let statsMonitor: SubscriberStatsMonitor
    private let fanOut = EventFanOut<CallSubscriberEvent>()
    private let storedDelegate: Locked<WeakSubscriberDelegate>
    /// The app's layer preferences (``preferredResolution`` ...), read by the session each interval.
    let storedPreferences = Locked(LayerPreferences())
    let storedReceiveLimit = Locked(SubscriberReceiveLimit.none)
    /// ``subscribeToAudio``.
    let storedAudioWanted = Locked(true)
    /// Where its decoded frames go (``videoRenderer``, ``videoFrames``), with the counts of what
    /// was delivered and dropped.
    public let videoOutput: VideoFrameOutput

    /// Creates a subscriber for `stream`.
    public init(stream: CallStream, delegate: (any CallSubscriberDelegate)? = nil) {
        current = Locked(stream)
        // One stream per subscriber connection (a handle per subscriber): the connection's only
        // stream, named by the stream and its publisher (the connection that publishes it), so
        // the sender stats it reads are that publisher's.
        statsMonitor = SubscriberStatsMonitor(stream: StreamID(stream.streamId), publisher: PublisherID(stream.connection.connectionId))
        storedDelegate = Locked(WeakSubscriberDelegate(delegate))
        videoOutput = VideoFrameOutput(label: "subscriber.\(stream.streamId)")
    }

    /// The lifecycle delegate (held weakly).
    public var delegate: (any CallSubscriberDelegate)? {
        get { storedDelegate.withLock { $0.object } }
        set { storedDelegate.withLock { $0 = WeakSubscriberDelegate(newValue) } }
    }

    /// Receives the raw reports asked for with ``getRtcStatsReport()`` (held weakly by the
    /// monitor).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? {
        get { statsMonitor.rtcStatsReportDelegate }
        set { statsMonitor.rtcStatsReportDelegate = newValue }
    }

    /// Asks for the raw WebRTC report of its peer connection, asynchronously: while it is
    /// subscribed it is a fresh one (a new `getStats()`), else the last one sampled.
    /// ``rtcStatsReportDelegate`` receives it.
    public func getRtcStatsReport() { statsMonitor.getRtcStatsReport() }

    /// The stats delegate, on the subscriber as in docs/spec/README.md (held weakly by the monitor).
    public var networkStatsDelegate: (any SubscriberNetworkStatsDelegate)? {
        get { statsMonitor.delegate }
        set { statsMonitor.delegate = newValue }
    }

    /// Every later lifecycle event (a new stream per access).
    public var events: AsyncStream<CallSubscriberEvent> { fanOut.makeStream() }

    func setVideoDimensions(_ dimensions: CallVideoDimensions) { current.withLock { $0.videoDimensions = dimensions } }

    /// Delivers events: delegate first, then the streams, in order.
    func deliver(_ events: [CallSubscriberEvent]) {
        guard !events.isEmpty else { return }
        if let delegate {
            for event in events {
                switch event {
                case .didConnect: delegate.subscriberDidConnect(toStream: self)
                case .didDisconnect: delegate.subscriberDidDisconnect(fromStream: self)
                case .didReconnect: delegate.subscriberDidReconnect(toStream: self)
                case .didFail(let error): delegate.subscriber(self, didFailWithError: error)
                case .videoDisableWarning: delegate.subscriberVideoDisableWarning(self)
                case .videoDisableWarningLifted: delegate.subscriberVideoDisableWarningLifted(self)
                case .videoDisabled(let reason): delegate.subscriberVideoDisabled(self, reason: reason)
                case .videoEnabled(let reason): delegate.subscriberVideoEnabled(self, reason: reason)
                case .layerChanged(let substream, let temporal): delegate.subscriber(self, didChangeLayerToSubstream: substream, temporal: temporal)
                }
            }
        }
        fanOut.yield(events)
    }
}

extension CallSubscriberEvent {
    /// The lifecycle events a ``SubscriberConnectionMachine`` emits, without their stream.
    public enum Kind: Hashable, Sendable {
        /// ``CallSubscriberEvent/didConnect(_:)``
        case didConnect
        /// ``CallSubscriberEvent/didDisconnect(_:)``
        case didDisconnect
        /// ``CallSubscriberEvent/didReconnect(_:)``
        case didReconnect
    }

    /// The event of `kind` for `stream`.
    init(_ kind: Kind, stream: CallStream) {
        switch kind {
        case .didConnect: self = .didConnect(stream)
        case .didDisconnect: self = .didDisconnect(stream)
        case .didReconnect: self = .didReconnect(stream)
        }
    }
}
