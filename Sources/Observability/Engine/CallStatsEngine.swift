import RTCStats

/// The whole stats engine for a call: every peer's publisher links and subscribed streams.
///
/// Pure and deterministic: feed samples and events in time order, get the callbacks each one
/// produces, in order. Time comes from the reports only.
public struct CallStatsEngine: Sendable {
    /// Whether a peer's publisher reaches its subscribers through the media router (one link) or
    /// peer to peer (one link per subscriber connection).
    public enum SessionMode: Sendable, Hashable {
        /// Through the media router: publisher arrays hold one element with empty ids.
        case routed
        /// Peer to peer: one element per subscriber connection, named by the connection label.
        case relayed
    }

    private let configuration: StatsEngineConfiguration
    private var modes: [String: SessionMode]
    private var publishers: [String: PeerPublisher] = [:]
    private var subscribers: [PeerKey: SubscriberStreamTracker] = [:]
    private var downlinks: [PeerKey: DownlinkEstimator] = [:]
    private var senderStats: [String: SenderStatsInbox] = [:]
    private var relayedMessages: [(deliverAt: Double, bytes: [UInt8], from: String)] = []
    private let deriveSenderStats: Bool
    private var sequence = 0

    /// A peer and one of its streams or connections.
    private struct PeerKey: Hashable, Sendable {
        var peer: String
        var name: String
    }

    private struct PeerPublisher: Sendable {
        var trackers: [PublisherLink: PublisherLinkTracker] = [:]
        var latest: [PublisherLink: PublisherLinkUpdate] = [:]
        /// What its latest routed report gives a sender-stats message: when, the uplink
        /// estimate and the sending layers (the rest is in the tracker).
        var senderStatsInputs: (time: Double, estimate: Double?, layers: [PublisherVideoLayerStats])?
    }

    /// The sender-stats messages one peer received, through one decoder.
    private struct SenderStatsInbox: Sendable {
        var decoder = SenderStatsDecoder()
        var received = ReceivedSenderStats()
    }

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - sessionModes: the peers whose publishers are relayed (default: routed).
    ///   - deriveSenderStats: deliver to every other peer, one interval late and through the same
    ///     encoder and decoder, the sender-stats message each publisher's SDK would have sent
    ///     from its own reports (for recordings made without sender stats).
    public init(configuration: StatsEngineConfiguration = .init(), sessionModes: [String: SessionMode] = [:], deriveSenderStats: Bool = false) {
        self.configuration = configuration
        self.modes = sessionModes
        self.deriveSenderStats = deriveSenderStats
    }

    /// Feeds one timeline item (a sample, or an event such as a received sender-stats message).
    public mutating func ingest(_ item: TimelineItem) -> [StatsCallback] {
        switch item {
        case .sample(let sample): return ingest(sample)
        case .event(let event):
            if event.name == "sender-stats" { receiveSenderStats(Array(JSONWriter.string(event.data).utf8), peer: event.peer, at: event.time) }
            return []
        }
    }

    /// Feeds a sender-stats message `peer` received over its data channel at `time`.
    public mutating func receiveSenderStats(_ bytes: [UInt8], peer: String, at time: Double) {
        var inbox = senderStats.removeValue(forKey: peer) ?? SenderStatsInbox()
        if let message = inbox.decoder.decode(bytes, receivedAt: time) { inbox.received.record(message, at: time) }
        senderStats[peer] = inbox
    }

    /// The sender-stats message `peer`'s publisher sends after its latest report (routed
    /// sessions; each call takes the next sequence number), `nil` before its first report.
    public mutating func senderStatsMessage(forPeer peer: String) -> SenderStatsMessage? {
        guard let publisher = publishers[peer], let inputs = publisher.senderStatsInputs, let tracker = publisher.trackers[.routed] else { return nil }
        sequence += 1
        return tracker.senderStatsMessage(sequence: sequence, timestamp: inputs.time, estimate: inputs.estimate, layers: inputs.layers)
    }

    /// Sender-stats messages accepted and dropped by `peer`'s decoder.
    public func senderStatsCounts(peer: String) -> (accepted: Int, dropped: Int) {
        (senderStats[peer]?.decoder.accepted ?? 0, senderStats[peer]?.decoder.droppedCount ?? 0)
    }

    /// Feeds one sample; returns the callbacks it produced, publisher first, then each stream.
    public mutating func ingest(_ sample: StatsSample) -> [StatsCallback] {
        deliverRelayedMessages(upTo: sample.time)
        var callbacks: [StatsCallback] = []
        let report = sample.report
        let digest = ReportDigest(report)
        func emit(_ stream: String, _ event: StatsEvent) {
            callbacks.append(StatsCallback(time: sample.time, peer: sample.peer, peerConnection: sample.peerConnection, stream: stream, event: event))
        }

        if !digest.outbound.isEmpty {
            let link = modes[sample.peer] == .relayed
                ? PublisherLink(connectionId: sample.peerConnection, subscriberId: sample.peerConnection) : .routed
            var publisher = publishers.removeValue(forKey: sample.peer) ?? PeerPublisher()
            var tracker = publisher.trackers.removeValue(forKey: link) ?? PublisherLinkTracker(link: link, configuration: configuration)
            if let update = tracker.ingest(report, digest: digest, peerConnection: sample.peerConnection) {
                publisher.latest[link] = update
                let links = publisher.latest.keys.sorted { $0.connectionId < $1.connectionId }
                let updates = links.compactMap { publisher.latest[$0] }
                if update.video != nil { emit("", .publisherVideoNetworkStatsUpdated(updates.compactMap(\.video))) }
                if update.audio != nil { emit("", .publisherAudioNetworkStatsUpdated(updates.compactMap(\.audio))) }
                emit("", .publisherMediaLinkStatsUpdated(updates.map(\.mediaLink)))
                if update.conditionChanged { emit("", .publisherNetworkConditionChanged(update.mediaLink, update.mediaLink.transport.networkConditionReason)) }
                if let video = update.video {
                    for reason in update.videoQualityChanges { emit("", .publisherVideoQualityChanged(video, reason)) }
                }
                if link == .routed {
                    let estimate = update.mediaLink.transport.connectionEstimatedBandwidth
                    publisher.senderStatsInputs = (sample.time, estimate > 0 ? estimate : nil, update.video?.videoLayers ?? [])
                }
            }
            publisher.trackers[link] = tracker
            publishers[sample.peer] = publisher
            if deriveSenderStats, link == .routed, let message = senderStatsMessage(forPeer: sample.peer) {
                relayedMessages.append((sample.time + configuration.intervalMilliseconds, message.encoded(), sample.peer))
            }
        }

        let streams = StreamDemultiplexer.streams(in: digest, defaultStreamID: "")
        guard !streams.isEmpty else { return callbacks }
        let estimate = downlinkEstimate(report, key: PeerKey(peer: sample.peer, name: sample.peerConnection))
        for (streamID, entries) in streams {
            let key = PeerKey(peer: sample.peer, name: streamID)
            var tracker = subscribers.removeValue(forKey: key) ?? SubscriberStreamTracker(configuration: configuration)
            if let update = tracker.ingest(entries, in: report, peerConnection: sample.peerConnection, downlinkEstimate: estimate,
                                           senderStats: senderStats[sample.peer]?.received) {
                if let video = update.video { emit(streamID, .subscriberVideoNetworkStatsUpdated(video)) }
                if let audio = update.audio { emit(streamID, .subscriberAudioNetworkStatsUpdated(audio)) }
                emit(streamID, .subscriberMediaLinkStatsUpdated(update.mediaLink))
                if update.conditionChanged {
                    let reason = update.mediaLink.transport.networkCondition.isDegraded || !update.mediaLink.remotePublisherTransport.networkCondition.isDegraded
                        ? update.mediaLink.transport.networkConditionReason : update.mediaLink.remotePublisherTransport.networkConditionReason
                    emit(streamID, .subscriberNetworkConditionChanged(update.mediaLink, reason))
                }
                if let video = update.video {
                    for reason in update.videoQualityChanges { emit(streamID, .subscriberVideoQualityChanged(video, reason)) }
                }
                if let quality = update.connectionQualityChanged { emit(streamID, .participantConnectionQualityChanged(quality)) }
            }
            subscribers[key] = tracker
        }
        return callbacks
    }

    private mutating func deliverRelayedMessages(upTo time: Double) {
        guard !relayedMessages.isEmpty else { return }
        let due = relayedMessages.filter { $0.deliverAt <= time }
        guard !due.isEmpty else { return }
        relayedMessages.removeAll { $0.deliverAt <= time }
        let receivers = Set(subscribers.keys.map(\.peer))
        for message in due {
            for peer in receivers where peer != message.from {
                receiveSenderStats(message.bytes, peer: peer, at: message.deliverAt)
            }
        }
    }

    private mutating func downlinkEstimate(_ report: StatsReport, key: PeerKey) -> Double {
        var estimator = downlinks.removeValue(forKey: key) ?? DownlinkEstimator()
        defer { downlinks[key] = estimator }
        return estimator.transport(of: report, maximumGap: configuration.maximumRateGapMilliseconds).connectionEstimatedBandwidth
    }
}
