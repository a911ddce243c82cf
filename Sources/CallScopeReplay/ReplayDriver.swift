import Observability
import RTCStats

/// Feeds a recorded call through the same engine an app uses, item by item, and returns the
/// callbacks each item produces. `callscope replay`, `evaluate`, `report` and `analyze` all
/// replay through it.
///
/// What a live SDK would know and a recording only implies, the driver infers from the whole
/// recording (see ``ReplayPolicy``): each endpoint's session mode, the publisher's allocation,
/// which stream a receiving connection carries (the router's stream list when recorded,
/// otherwise overlapping connections are parallel streams and a later one replaces an ended
/// one), and which publisher a sender-stats message came from. With ``SenderStatsMode/auto``
/// and no received messages in the recording, it derives from each publisher's own reports
/// the messages its SDK would have sent, and delivers them one interval late through the same
/// encoder and decoder.
public struct ReplayDriver: Sendable {
    /// Whether sender-stats messages reach the subscribers in a replay.
    public enum SenderStatsMode: String, Sendable, CaseIterable {
        /// Recorded messages, or derived ones when the recording has none.
        case auto
        /// None: subscribers replay without sender stats.
        case off
    }

    var engine: CallStatsEngine
    let policy: ReplayPolicy
    private let senderStats: SenderStatsMode
    private let derive: Bool
    private let interval: Double
    /// Bindings the recording itself gave (`subscriber-streams` events), per connection.
    var recordedBindings: [ReplayPolicy.ConnectionKey: [StreamBinding]] = [:]
    /// Each stream's receive limit from its last `subscriber.layerChanged` (what
    /// `subscriber.videoEnabled` returns to).
    var layerLimits: [StreamKey: SubscriberReceiveLimit] = [:]
    /// Streams whose limits the recording gives as decided (`subscriber.receiveLimit` lines).
    var decidedLimits: Set<StreamKey> = []
    /// Policy event lines that could not be applied.
    public internal(set) var unreadablePolicyEvents = 0
    private var pendingMessages: [PendingMessage] = []
    private var receivers: [EndpointID] = []

    private struct PendingMessage: Sendable {
        var deliverAt: Double
        var bytes: [UInt8]
        var from: EndpointID
    }

    /// Creates a driver for `timeline`; `configuration` defaults to docs/spec/observability.md's, with the
    /// allocation the recording header gives.
    public init(timeline: StatsTimeline, senderStats: SenderStatsMode = .auto, configuration: StatsEngineConfiguration = .init()) {
        policy = ReplayPolicy(timeline)
        var configuration = configuration
        if configuration.maxAllocatedBitrate == nil { configuration.maxAllocatedBitrate = policy.maxAllocatedBitrate }
        engine = CallStatsEngine(configuration: configuration, sessionModes: policy.sessionModes)
        self.senderStats = senderStats
        let endpoints = Set(timeline.samples.map(\.peer))
        derive = senderStats == .auto && !policy.hasSenderStatsLines && endpoints.count > 1
        interval = configuration.intervalMilliseconds
        // A connection's streams are known from its creation: its first recorded stream list
        // applies from its first sample, even when the list was written a moment later (a
        // recorder's wall clock and the reports' timestamps differ by milliseconds).
        for case .event(let event) in timeline.items where event.name == TimelineEventName.subscriberStreams {
            guard let (key, bindings) = Self.recordedBindings(of: event), recordedBindings[key] == nil else { continue }
            recordedBindings[key] = bindings
        }
    }

    /// The bindings a `subscriber-streams` event gives its connection. Each entry: `publisher`,
    /// and `mid` (a receiver on a multistream connection) or no `mid` (the connection's only
    /// stream); `stream` names the stream (default: the publisher).
    private static func recordedBindings(of event: TimelineEvent) -> (ReplayPolicy.ConnectionKey, [StreamBinding])? {
        guard let connection = event.peerConnection, let streams = event.data["streams"]?.array else { return nil }
        var mids: [String: [String]] = [:]
        var names: [String: String] = [:]
        var order: [String] = []
        for stream in streams {
            guard let publisher = stream["publisher"]?.string else { continue }
            let mid = stream["mid"]?.identifier
            if stream["mid"] != nil, mid == nil { continue }
            if mids[publisher] == nil { order.append(publisher) }
            mids[publisher, default: []].append(contentsOf: mid.map { [$0] } ?? [])
            if let name = stream["stream"]?.string { names[publisher] = name }
        }
        let key = ReplayPolicy.ConnectionKey(endpoint: EndpointID(event.peer), peerConnection: PeerConnectionID(connection))
        return (key, order.map { StreamBinding(stream: StreamID(names[$0] ?? $0), publisher: PublisherID($0), mids: mids[$0] ?? []) })
    }

    /// Replays a whole timeline; every callback, in order.
    public static func replay(_ timeline: StatsTimeline, senderStats: SenderStatsMode = .auto) -> [StatsCallback] {
        var driver = ReplayDriver(timeline: timeline, senderStats: senderStats)
        return timeline.items.flatMap { driver.ingest($0) }
    }

    /// Feeds one item; returns the callbacks it produced.
    public mutating func ingest(_ item: TimelineItem) -> [StatsCallback] {
        replay(item).callbacks
    }

    /// What one item produced: the engine's callbacks, and the layer policy's decision when the
    /// item is one (see ``SubscriberPolicyEvent``).
    public struct Output: Sendable, Hashable {
        /// The engine's callbacks, in order.
        public var callbacks: [StatsCallback] = []
        /// The policy event the item carried, as applied.
        public var policyEvent: SubscriberPolicyEvent?
    }

    /// Feeds one item; returns its callbacks and, for a layer-policy event line, the event as
    /// applied to the engine (its receive limit holds from the next report on).
    public mutating func replay(_ item: TimelineItem) -> Output {
        switch item {
        case .sample(let sample): return Output(callbacks: ingest(sample))
        case .event(let event):
            if TimelineEventName.subscriberPolicyEvents.contains(event.name) { return Output(policyEvent: applyPolicyEvent(event)) }
            if event.name == TimelineEventName.subscriberReceiveLimit {
                applyReceiveLimit(event)
                return Output()
            }
            receive(event)
            return Output()
        }
    }

    /// Values out of their physical bounds, dropped so far (see ``PhysicalBounds``).
    public var droppedValues: DroppedValues { engine.droppedValues }

    /// Sender-stats messages `endpoint` accepted and dropped so far.
    public func senderStatsCounts(endpoint: EndpointID) -> SenderStatsCounts {
        engine.senderStatsCounts(endpoint: endpoint)
    }

    /// The streams a receiving connection carries: the recorded list, else the inferred one.
    func bindings(of key: ReplayPolicy.ConnectionKey) -> [StreamBinding] {
        recordedBindings[key] ?? policy.inferredBindings[key].map { [$0] } ?? []
    }

    private mutating func ingest(_ sample: StatsSample) -> [StatsCallback] {
        deliverPendingMessages(upTo: sample.time)
        let key = ReplayPolicy.ConnectionKey(endpoint: EndpointID(sample.peer), peerConnection: PeerConnectionID(sample.peerConnection))
        let bindings = bindings(of: key)
        if !bindings.isEmpty, !receivers.contains(key.endpoint) { receivers.append(key.endpoint) }
        let callbacks = engine.ingest(sample, streams: bindings)
        if derive, policy.producers.contains(key.endpoint),
           let message = engine.senderStatsMessage(for: key.endpoint, publisher: PublisherID(key.endpoint.rawValue)) {
            pendingMessages.append(PendingMessage(deliverAt: sample.time + interval, bytes: message.encoded(), from: key.endpoint))
        }
        return callbacks
    }

    private mutating func receive(_ event: TimelineEvent) {
        switch event.name {
        case TimelineEventName.senderStats where senderStats == .auto:
            // A message that names no publisher comes from the publisher of the stream its
            // connection carries (recorded), else from the only one, when there is one.
            let named = event.data["publisher"]?.string != nil
            let carried = event.peerConnection.flatMap { recordedBindings[ReplayPolicy.ConnectionKey(endpoint: EndpointID(event.peer), peerConnection: PeerConnectionID($0))] }
            let sole = carried.flatMap { Set($0.map(\.publisher)).count == 1 ? $0.first?.publisher : nil }
            engine.receiveSenderStats(Array(JSONWriter.string(event.data).utf8), endpoint: EndpointID(event.peer),
                                      publisher: named ? nil : sole ?? policy.soleProducer, at: event.time)
        case TimelineEventName.subscriberStreams:
            guard let (key, bindings) = Self.recordedBindings(of: event) else { return }
            recordedBindings[key] = bindings
        default:
            return
        }
    }

    private mutating func deliverPendingMessages(upTo time: Double) {
        guard pendingMessages.contains(where: { $0.deliverAt <= time }) else { return }
        let due = pendingMessages.filter { $0.deliverAt <= time }
        pendingMessages.removeAll { $0.deliverAt <= time }
        for message in due {
            for receiver in receivers where receiver != message.from {
                engine.receiveSenderStats(message.bytes, endpoint: receiver, publisher: PublisherID(message.from.rawValue), at: message.deliverAt)
            }
        }
    }
}
