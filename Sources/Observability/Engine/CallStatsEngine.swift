import RTCStats

/// The whole stats engine for a call: every peer's publisher links and subscribed streams.
///
/// Pure and deterministic: feed samples in time order, get the callbacks each one produces, in
/// order. Time comes from the reports only.
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
    private var subscribers: [String: SubscriberStreamTracker] = [:]
    private var downlinks: [String: DownlinkEstimator] = [:]

    private struct PeerPublisher: Sendable {
        var trackers: [PublisherLink: PublisherLinkTracker] = [:]
        var latest: [PublisherLink: PublisherLinkUpdate] = [:]
    }

    /// Creates an engine. `sessionModes` names the peers whose publishers are relayed (default:
    /// routed).
    public init(configuration: StatsEngineConfiguration = .init(), sessionModes: [String: SessionMode] = [:]) {
        self.configuration = configuration
        self.modes = sessionModes
    }

    /// Feeds one sample; returns the callbacks it produced, publisher first, then each stream.
    public mutating func ingest(_ sample: StatsSample) -> [StatsCallback] {
        var callbacks: [StatsCallback] = []
        let report = sample.report
        let digest = ReportDigest(report)
        func emit(_ stream: String, _ event: StatsEvent) {
            callbacks.append(StatsCallback(time: sample.time, peer: sample.peer, peerConnection: sample.peerConnection, stream: stream, event: event))
        }

        if !digest.outbound.isEmpty {
            let link = modes[sample.peer] == .relayed
                ? PublisherLink(connectionId: sample.peerConnection, subscriberId: sample.peerConnection) : .routed
            var publisher = publishers[sample.peer] ?? PeerPublisher()
            var tracker = publisher.trackers[link] ?? PublisherLinkTracker(link: link, configuration: configuration)
            if let update = tracker.ingest(report, digest: digest, peerConnection: sample.peerConnection) {
                publisher.latest[link] = update
                let links = publisher.latest.keys.sorted { $0.connectionId < $1.connectionId }
                let updates = links.compactMap { publisher.latest[$0] }
                if update.video != nil { emit("", .publisherVideoNetworkStatsUpdated(updates.compactMap(\.video))) }
                if update.audio != nil { emit("", .publisherAudioNetworkStatsUpdated(updates.compactMap(\.audio))) }
                emit("", .publisherMediaLinkStatsUpdated(updates.map(\.mediaLink)))
            }
            publisher.trackers[link] = tracker
            publishers[sample.peer] = publisher
        }

        let streams = StreamDemultiplexer.streams(in: report, inbound: digest.inbound, defaultStreamID: "")
        guard !streams.isEmpty else { return callbacks }
        let downlink = downlinkTransport(report, key: sample.peer + "|" + sample.peerConnection)
        for (streamID, entries) in streams {
            let key = sample.peer + "|" + streamID
            var tracker = subscribers[key] ?? SubscriberStreamTracker(configuration: configuration)
            if let update = tracker.ingest(entries, in: report, peerConnection: sample.peerConnection, downlink: downlink) {
                if let video = update.video { emit(streamID, .subscriberVideoNetworkStatsUpdated(video)) }
                if let audio = update.audio { emit(streamID, .subscriberAudioNetworkStatsUpdated(audio)) }
                emit(streamID, .subscriberMediaLinkStatsUpdated(update.mediaLink))
            }
            subscribers[key] = tracker
        }
        return callbacks
    }

    private mutating func downlinkTransport(_ report: StatsReport, key: String) -> TransportStats {
        var estimator = downlinks[key] ?? DownlinkEstimator()
        defer { downlinks[key] = estimator }
        return estimator.transport(of: report, maximumGap: configuration.maximumRateGapMilliseconds)
    }
}
