import RTCStats

/// Every endpoint's receiving side: its subscribed streams, each connection's downlink
/// estimate, and the sender-stats messages received, kept per (receiving endpoint, remote
/// publisher) so that two publishers behind one connection never share a sequence space.
struct SubscriberSide: Sendable {
    private let configuration: StatsEngineConfiguration
    private var streams: [StreamKey: SubscriberStreamTracker] = [:]
    private var connections: [ConnectionKey: ConnectionState] = [:]
    private var inboxes: [InboxKey: SenderStatsInbox] = [:]
    /// What the SDK's layer policy says limits each stream (absent: `.none`).
    private var limits: [StreamKey: SubscriberReceiveLimit] = [:]
    /// Streams a policy has given a limit (`.none` included): no step-down is inferred for them.
    private var limitsGiven: Set<StreamKey> = []
    /// Each stream's downlink as its counters alone score it, after its latest report.
    private var measured: [StreamKey: TransportStats] = [:]
    /// Each stream's publisher, sending or not, after its latest report.
    private var sending: [StreamKey: PublisherSending] = [:]
    /// Messages that failed validation, per receiving endpoint (their publisher is unknown).
    private var invalidMessages: [EndpointID: [SenderStatsDecoder.Rejection: Int]] = [:]
    /// Relayed endpoints: each link's own condition at its latest report (ms), by connection
    /// label, its own reports' and those noted from outside (``noteRelayedLink(_:endpoint:peerConnection:at:)``).
    private var relayedLinks: [EndpointID: [String: (link: RelayedLinkAttribution.Judgement, time: Double)]] = [:]
    /// How old another link's condition may be and still count (ms): two missed samples.
    static let relayedLinkFreshness = 2_500.0

    private struct StreamKey: Hashable, Sendable {
        var endpoint: EndpointID
        var stream: StreamID
    }

    private struct ConnectionKey: Hashable, Sendable {
        var endpoint: EndpointID
        var peerConnection: PeerConnectionID
    }

    /// One receiving connection: its downlink estimate and its previous report time.
    private struct ConnectionState: Sendable {
        var downlink = DownlinkEstimator()
        var reportTime: Double?
        /// Packets received over all its inbound RTP entries at its previous report.
        var inboundPackets: Double?
    }

    private struct InboxKey: Hashable, Sendable {
        var endpoint: EndpointID
        var publisher: PublisherID
    }

    /// The sender-stats messages one endpoint received from one publisher, through one decoder.
    private struct SenderStatsInbox: Sendable {
        var decoder = SenderStatsDecoder()
        var received = ReceivedSenderStats()
    }

    init(configuration: StatsEngineConfiguration) {
        self.configuration = configuration
    }

    /// Feeds a sender-stats message `endpoint` received at `time`. Its publisher is `publisher`
    /// when the caller knows it (the data channel it arrived on), else the one the message
    /// names, else ``PublisherID/unnamed``.
    mutating func receiveSenderStats(_ bytes: [UInt8], endpoint: EndpointID, publisher: PublisherID?, at time: Double) {
        switch SenderStatsDecoder.validate(bytes) {
        case .failure(let rejection):
            invalidMessages[endpoint, default: [:]][rejection, default: 0] += 1
        case .success(let message):
            let key = InboxKey(endpoint: endpoint, publisher: publisher ?? message.publisher ?? .unnamed)
            var inbox = inboxes.removeValue(forKey: key) ?? SenderStatsInbox()
            if let accepted = inbox.decoder.accept(message, receivedAt: time) { inbox.received.record(accepted, at: time) }
            inboxes[key] = inbox
        }
    }

    /// Makes `endpoint`'s receiving connections relayed: the publisher's side of each comes from
    /// its own RTCP and the endpoint's other links (``RelayedLinkAttribution``).
    mutating func markRelayed(endpoint: EndpointID) {
        if relayedLinks[endpoint] == nil { relayedLinks[endpoint] = [:] }
    }

    /// Notes the condition of a relayed link of `endpoint` whose reports another engine reads
    /// (another stream's monitor on the same device).
    mutating func noteRelayedLink(_ link: RelayedLinkAttribution.Judgement, endpoint: EndpointID, peerConnection: String, at time: Double) {
        guard relayedLinks[endpoint] != nil else { return }
        relayedLinks[endpoint]?[peerConnection] = (link, time)
    }

    /// The condition of `endpoint`'s relayed link on `peerConnection` at its latest report.
    func relayedLink(endpoint: EndpointID, peerConnection: String) -> (link: RelayedLinkAttribution.Judgement, time: Double)? {
        relayedLinks[endpoint]?[peerConnection]
    }

    /// Sets what limits `stream` of `endpoint` from its next report on.
    mutating func setReceiveLimit(_ limit: SubscriberReceiveLimit, endpoint: EndpointID, stream: StreamID) {
        limits[StreamKey(endpoint: endpoint, stream: stream)] = limit == .none ? nil : limit
        limitsGiven.insert(StreamKey(endpoint: endpoint, stream: stream))
    }

    /// The limit in force for `stream` of `endpoint`.
    func receiveLimit(endpoint: EndpointID, stream: StreamID) -> SubscriberReceiveLimit {
        limits[StreamKey(endpoint: endpoint, stream: stream)] ?? .none
    }

    /// Whether `stream`'s publisher is sending, as its latest report tells it; `nil` before its first report.
    func publisherSending(endpoint: EndpointID, stream: StreamID) -> PublisherSending? {
        sending[StreamKey(endpoint: endpoint, stream: stream)]
    }

    /// `stream`'s downlink without its receive limit applied; `nil` before its first report.
    func measuredDownlink(endpoint: EndpointID, stream: StreamID) -> TransportStats? {
        measured[StreamKey(endpoint: endpoint, stream: stream)]
    }

    /// The latest message `endpoint` accepted from `publisher`.
    func latestSenderStats(endpoint: EndpointID, publisher: PublisherID) -> SenderStatsMessage? {
        inboxes[InboxKey(endpoint: endpoint, publisher: publisher)]?.received.latest?.message
    }

    /// The latest message `endpoint` accepted from `publisher`, and when it arrived (ms).
    func latestSenderStatsReceipt(endpoint: EndpointID, publisher: PublisherID) -> (message: SenderStatsMessage, receivedAt: Double)? {
        inboxes[InboxKey(endpoint: endpoint, publisher: publisher)]?.received.latest
    }

    /// Values out of their physical bounds, dropped so far.
    var droppedValues: DroppedValues {
        var total = DroppedValues()
        for tracker in streams.values { total.add(tracker.dropped) }
        for connection in connections.values { total.add(connection.downlink.dropped) }
        return total
    }

    /// Messages `endpoint` accepted and dropped, from every publisher (`publisher` nil) or one.
    func senderStatsCounts(endpoint: EndpointID, publisher: PublisherID?) -> SenderStatsCounts {
        var counts = SenderStatsCounts()
        if publisher == nil {
            for (_, count) in invalidMessages[endpoint] ?? [:] { counts.dropped += count }
        }
        for (key, inbox) in inboxes where key.endpoint == endpoint && (publisher == nil || key.publisher == publisher) {
            counts.accepted += inbox.decoder.accepted
            counts.dropped += inbox.decoder.droppedCount
        }
        return counts
    }

    /// Moves a connection on by one report: its downlink estimate now, and the time of its
    /// report before this one (the estimate `nil` when there is none yet).
    /// An interval in which no RTP packet arrived on the connection offered nothing: its rate
    /// (RTCP and STUN only) says nothing of what the link can carry and is not taken as one.
    private static func advance(_ connection: inout ConnectionState, digest: ReportDigest, maximumGap: Double) -> (estimate: Double?, previousReport: Double?) {
        let packets = digest.inbound.reduce(0) { $0 + ($1.packetsReceived ?? 0) }
        let offered = connection.inboundPackets.map { packets > $0 } ?? true
        connection.inboundPackets = packets
        let transport = connection.downlink.transport(selectedPair: digest.selectedPair, reportTime: digest.time, maximumGap: maximumGap,
                                                      offered: offered)
        let estimate = transport.unmeasured.contains(.estimatedBandwidth) ? nil : transport.connectionEstimatedBandwidth
        let previousReport = connection.reportTime
        if let time = digest.time, time > (previousReport ?? -.infinity) { connection.reportTime = time }
        return (estimate, previousReport)
    }

    /// Feeds one report with receiving entries; appends the callbacks of every stream in it.
    mutating func ingest(_ sample: StatsSample, digest: ReportDigest, endpoint: EndpointID, bindings: [StreamBinding], into callbacks: inout [StatsCallback]) {
        let peerConnection = PeerConnectionID(sample.peerConnection)
        let found = StreamDemultiplexer.streams(in: digest, bindings: bindings)
        guard !found.isEmpty else { return }
        let key = ConnectionKey(endpoint: endpoint, peerConnection: peerConnection)
        let configuration = self.configuration
        // State is mutated in place through the defaulting subscript: one hash look-up, and
        // nothing moved out of the dictionary and copied back.
        let (estimate, previousReport) = Self.advance(&connections[key, default: ConnectionState()], digest: digest,
                                                      maximumGap: configuration.maximumRateGapMilliseconds)
        let otherLinks = relayedLinks[endpoint].map { links in
            links.filter { $0.key != sample.peerConnection && sample.time - $0.value.time <= Self.relayedLinkFreshness }.map(\.value.link)
        }
        for stream in found {
            let key = StreamKey(endpoint: endpoint, stream: stream.id)
            let senderStats = inboxes[InboxKey(endpoint: endpoint, publisher: stream.publisher)]?.received
            guard let update = streams[key, default: SubscriberStreamTracker(configuration: configuration)]
                .ingest(stream.entries, in: sample.report, selectedPair: digest.selectedPair, peerConnection: sample.peerConnection,
                        connectionPreviousReport: previousReport,
                        downlinkEstimate: estimate, senderStats: senderStats,
                        limit: limits[key] ?? .none, limitsGiven: limitsGiven.contains(key), relayedLinks: otherLinks) else { continue }
            measured[key] = update.measuredDownlink
            if let link = update.relayedLink { relayedLinks[endpoint]?[sample.peerConnection] = (link, sample.time) }
            sending[key] = update.source
            func emit(_ event: StatsEvent) {
                callbacks.append(StatsCallback(time: sample.time, endpoint: endpoint, peerConnection: peerConnection,
                                               stream: stream.id, publisher: stream.publisher, event: event))
            }
            if let video = update.video { emit(.subscriberVideoNetworkStatsUpdated(video)) }
            if let audio = update.audio { emit(.subscriberAudioNetworkStatsUpdated(audio)) }
            emit(.subscriberMediaLinkStatsUpdated(update.mediaLink))
            if let change = update.conditionChange { emit(.subscriberNetworkConditionChanged(update.mediaLink, change.reason)) }
            if let video = update.video {
                for reason in update.videoQualityChanges { emit(.subscriberVideoQualityChanged(video, reason)) }
            }
            if let quality = update.connectionQualityChanged { emit(.participantConnectionQualityChanged(quality)) }
        }
    }
}

/// How many sender-stats messages were accepted and dropped.
public struct SenderStatsCounts: Sendable, Hashable {
    /// Messages accepted.
    public var accepted = 0
    /// Messages dropped (malformed, invalid, stale, rate limited, too large).
    public var dropped = 0

    /// Creates counts.
    public init(accepted: Int = 0, dropped: Int = 0) {
        self.accepted = accepted
        self.dropped = dropped
    }
}
