import RTCStats

/// The stats engine of one app (or of a whole recorded call): every endpoint's publisher
/// links and subscribed streams.
///
/// Pure and deterministic: feed reports and sender-stats messages in time order, get the
/// callbacks each report produces, in order. Time comes from the reports only.
public struct CallStatsEngine: Sendable {
    /// Whether an endpoint's publisher reaches its subscribers through the media router (one
    /// link) or peer to peer (one link per subscriber connection).
    public enum SessionMode: Sendable, Hashable {
        /// Through the media router: publisher arrays hold one element with empty ids.
        case routed
        /// Peer to peer: one element per subscriber connection, named by the connection label.
        case relayed
    }

    private var publishing: PublisherSide
    var receiving: SubscriberSide
    private var droppedSamples = DroppedValues()

    /// Creates an engine; `sessionModes` names the endpoints whose sessions are relayed
    /// (default: routed). A relayed endpoint's publisher has one link per subscriber, and the
    /// publisher's side of each stream it receives comes from that link's own RTCP
    /// (docs/peer-to-peer.md).
    public init(configuration: StatsEngineConfiguration = .init(), sessionModes: [EndpointID: SessionMode] = [:]) {
        publishing = PublisherSide(configuration: configuration, modes: sessionModes)
        receiving = SubscriberSide(configuration: configuration)
        for (endpoint, mode) in sessionModes where mode == .relayed { receiving.markRelayed(endpoint: endpoint) }
    }

    /// Feeds one report (`sample.peer` is the endpoint, `sample.peerConnection` the connection);
    /// returns the callbacks it produced, publisher first, then each stream.
    ///
    /// `streams` says which stream the receivers belong to (see ``StreamBinding``). Without
    /// bindings a connection's only stream is ``StreamID/sole``, so a replacement connection
    /// continues it; a caller with two connections in parallel must bind each to its stream.
    public mutating func ingest(_ sample: StatsSample, streams: [StreamBinding] = []) -> [StatsCallback] {
        guard droppedSamples.check(sample.time, PhysicalBounds.time, .sampleTime) != nil else { return [] }
        let endpoint = EndpointID(sample.peer)
        let digest = ReportDigest(sample.report)
        var callbacks: [StatsCallback] = []
        if !digest.outbound.isEmpty { publishing.ingest(sample, digest: digest, endpoint: endpoint, into: &callbacks) }
        if !digest.inbound.isEmpty { receiving.ingest(sample, digest: digest, endpoint: endpoint, bindings: streams, into: &callbacks) }
        return callbacks
    }

    /// Makes `endpoint`'s publisher relayed (if it was not) and names its link on
    /// `peerConnection` after the subscriber it reaches: its connection and subscriber ids go into
    /// the publisher's stats arrays in place of the connection's label.
    package mutating func nameRelayedLink(endpoint: EndpointID, peerConnection: String, connectionId: String, subscriberId: String) {
        publishing.nameRelayedLink(endpoint: endpoint, peerConnection: peerConnection, connectionId: connectionId, subscriberId: subscriberId)
    }

    /// Makes the streams `endpoint` receives relayed: each publisher's side comes from the
    /// stream's own link and the endpoint's other links (``RelayedLinkAttribution``).
    package mutating func receiveRelayed(endpoint: EndpointID) {
        receiving.markRelayed(endpoint: endpoint)
    }

    /// Notes the condition of another relayed link of `endpoint` (one whose reports another
    /// engine reads) at `time` (ms, the reports' clock).
    package mutating func noteRelayedLink(condition: NetworkCondition, reason: NetworkConditionReason, endpoint: EndpointID,
                                          peerConnection: String, at time: Double) {
        receiving.noteRelayedLink(.init(condition: condition, reason: reason), endpoint: endpoint, peerConnection: peerConnection, at: time)
    }

    /// The condition of `endpoint`'s relayed link on `peerConnection` at its latest report, and
    /// that report's time (ms); `nil` before it, or when the endpoint does not receive relayed.
    package func relayedLink(endpoint: EndpointID, peerConnection: String) -> (condition: NetworkCondition, reason: NetworkConditionReason, time: Double)? {
        receiving.relayedLink(endpoint: endpoint, peerConnection: peerConnection).map { ($0.link.condition, $0.link.reason, $0.time) }
    }

    /// The relayed link on `peerConnection` ended (its subscriber left): its element leaves
    /// `endpoint`'s publisher arrays from the next report of another link on.
    package mutating func forgetRelayedLink(endpoint: EndpointID, peerConnection: String) {
        publishing.forgetRelayedLink(endpoint: endpoint, peerConnection: peerConnection)
    }

    /// Feeds a sender-stats message `endpoint` received over a data channel at `time` (ms, the
    /// clock of the reports). `publisher` is who sent it when the caller knows (the channel it
    /// came on); otherwise the message's own `publisher` field, else ``PublisherID/unnamed``.
    /// Bad messages are dropped and counted.
    public mutating func receiveSenderStats(_ bytes: [UInt8], endpoint: EndpointID, publisher: PublisherID? = nil, at time: Double) {
        receiving.receiveSenderStats(bytes, endpoint: endpoint, publisher: publisher, at: time)
    }

    /// The sender-stats message `endpoint`'s publisher sends after its latest report (routed
    /// sessions; each call takes the next sequence number), naming itself `publisher` when given;
    /// `nil` before its first report.
    public mutating func senderStatsMessage(for endpoint: EndpointID, publisher: PublisherID? = nil) -> SenderStatsMessage? {
        publishing.senderStatsMessage(for: endpoint, publisher: publisher)
    }

    /// The latest sender-stats message `endpoint` accepted from `publisher`; `nil` before the first.
    public func latestSenderStats(endpoint: EndpointID, publisher: PublisherID) -> SenderStatsMessage? {
        receiving.latestSenderStats(endpoint: endpoint, publisher: publisher)
    }

    /// The latest sender-stats message `endpoint` accepted from `publisher`, with its arrival (ms).
    func latestSenderStatsReceipt(endpoint: EndpointID, publisher: PublisherID) -> (message: SenderStatsMessage, receivedAt: Double)? {
        receiving.latestSenderStatsReceipt(endpoint: endpoint, publisher: publisher)
    }

    /// Sender-stats messages `endpoint` accepted and dropped, from `publisher` or (nil) from all.
    public func senderStatsCounts(endpoint: EndpointID, publisher: PublisherID? = nil) -> SenderStatsCounts {
        receiving.senderStatsCounts(endpoint: endpoint, publisher: publisher)
    }

    /// Values that were out of their physical bounds (``PhysicalBounds``) and so dropped,
    /// never emitted; counted by kind.
    public var droppedValues: DroppedValues {
        var total = publishing.droppedValues
        total.add(receiving.droppedValues)
        total.add(droppedSamples)
        return total
    }
}
