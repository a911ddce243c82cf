import RTCStats

/// Every endpoint's publishing side: its links (one when routed, one per subscriber connection
/// when relayed), the callbacks their reports produce, and the sender-stats message each
/// publisher sends after its latest report.
struct PublisherSide: Sendable {
    private let configuration: StatsEngineConfiguration
    private var modes: [EndpointID: CallStatsEngine.SessionMode]
    /// Relayed links named by the call (a subscriber's connection and id) rather than by the
    /// peer connection's label, per endpoint and peer connection.
    private var linkNames: [EndpointID: [String: PublisherLink]] = [:]
    private var publishers: [EndpointID: EndpointPublisher] = [:]
    private var sequence = 0

    private struct EndpointPublisher: Sendable {
        var trackers: [PublisherLink: PublisherLinkTracker] = [:]
        var latest: [PublisherLink: PublisherLinkUpdate] = [:]
        /// What its latest routed report gives a sender-stats message.
        var senderStatsInputs: SenderStatsInputs?
    }

    /// When the latest routed report was taken, the uplink estimate and the sending layers
    /// (the rest of a sender-stats message is in the tracker).
    private struct SenderStatsInputs: Sendable {
        var time: Double
        var estimate: Double?
        var layers: [PublisherVideoLayerStats]
    }

    init(configuration: StatsEngineConfiguration, modes: [EndpointID: CallStatsEngine.SessionMode]) {
        self.configuration = configuration
        self.modes = modes
    }

    /// Feeds one report with sending entries; appends the callbacks it produced.
    mutating func ingest(_ sample: StatsSample, digest: ReportDigest, endpoint: EndpointID, into callbacks: inout [StatsCallback]) {
        let peerConnection = PeerConnectionID(sample.peerConnection)
        let link = modes[endpoint] == .relayed
            ? linkNames[endpoint]?[sample.peerConnection] ?? PublisherLink(connectionId: sample.peerConnection, subscriberId: sample.peerConnection)
            : .routed
        var publisher = publishers.removeValue(forKey: endpoint) ?? EndpointPublisher()
        defer { publishers[endpoint] = publisher }
        var tracker = publisher.trackers.removeValue(forKey: link) ?? PublisherLinkTracker(link: link, configuration: configuration)
        defer { publisher.trackers[link] = tracker }
        guard let update = tracker.ingest(sample.report, digest: digest, peerConnection: sample.peerConnection) else { return }

        func emit(_ event: StatsEvent) {
            callbacks.append(StatsCallback(time: sample.time, endpoint: endpoint, peerConnection: peerConnection, event: event))
        }
        publisher.latest[link] = update
        let updates = publisher.latest.keys.sorted { $0.connectionId < $1.connectionId }.compactMap { publisher.latest[$0] }
        if update.video != nil { emit(.publisherVideoNetworkStatsUpdated(updates.compactMap(\.video))) }
        if update.audio != nil { emit(.publisherAudioNetworkStatsUpdated(updates.compactMap(\.audio))) }
        emit(.publisherMediaLinkStatsUpdated(updates.map(\.mediaLink)))
        if let change = update.conditionChange { emit(.publisherNetworkConditionChanged(update.mediaLink, change.reason)) }
        if let video = update.video {
            for reason in update.videoQualityChanges { emit(.publisherVideoQualityChanged(video, reason)) }
        }
        if link == .routed {
            let estimate = update.mediaLink.transport.connectionEstimatedBandwidth
            publisher.senderStatsInputs = SenderStatsInputs(time: sample.time, estimate: estimate > 0 ? estimate : nil, layers: update.video?.videoLayers ?? [])
        }
    }

    /// Makes `endpoint`'s publisher relayed, its link on `peerConnection` named `connectionId` /
    /// `subscriberId` from the next report on.
    mutating func nameRelayedLink(endpoint: EndpointID, peerConnection: String, connectionId: String, subscriberId: String) {
        modes[endpoint] = .relayed
        // A routed element reported before the switch would stay in the arrays: it is no link now.
        publishers[endpoint]?.trackers[.routed] = nil
        publishers[endpoint]?.latest[.routed] = nil
        linkNames[endpoint, default: [:]][peerConnection] = PublisherLink(connectionId: connectionId, subscriberId: subscriberId)
    }

    /// Drops the relayed link on `peerConnection`: its tracker, its latest element and its name.
    mutating func forgetRelayedLink(endpoint: EndpointID, peerConnection: String) {
        let link = linkNames[endpoint]?.removeValue(forKey: peerConnection)
            ?? PublisherLink(connectionId: peerConnection, subscriberId: peerConnection)
        publishers[endpoint]?.trackers[link] = nil
        publishers[endpoint]?.latest[link] = nil
    }

    /// Values out of their physical bounds, dropped so far.
    var droppedValues: DroppedValues {
        var total = DroppedValues()
        for publisher in publishers.values {
            for tracker in publisher.trackers.values { total.add(tracker.dropped) }
        }
        return total
    }

    /// The sender-stats message `endpoint`'s publisher sends after its latest report (routed
    /// sessions; each call takes the next sequence number), `nil` before its first report.
    mutating func senderStatsMessage(for endpoint: EndpointID, publisher: PublisherID?) -> SenderStatsMessage? {
        guard let state = publishers[endpoint], let inputs = state.senderStatsInputs, let tracker = state.trackers[.routed] else { return nil }
        sequence += 1
        var message = tracker.senderStatsMessage(sequence: sequence, timestamp: inputs.time, estimate: inputs.estimate, layers: inputs.layers)
        message.publisher = publisher
        return message
    }
}
