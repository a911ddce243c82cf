import RTCStats

/// Everything a call needs from one report of a subscriber's peer connection, read in one
/// pass under the monitor's lock: the callbacks, the connection's progress and paths, the
/// decoded size, and what the layer policy decides on.
package struct SubscriberReading: Sendable {
    /// The report's callbacks for this stream (computed even when nobody listens).
    package var callbacks: [StatsCallback]
    /// The selected pair's progress and the working paths.
    package var connection: ConnectionReading
    /// The size of the frames decoded, once there are any.
    package var decodedVideo: DecodedVideoSize?
    /// The report's `timestamp` (ms), when it has one.
    package var reportTime: Double?
    /// This stream's downlink as its counters alone score it, without the receive limit (what
    /// a layer policy decides on: under `.downlink` the reported condition stays at `warning`).
    package var measuredDownlink: TransportStats?
    /// The latest sender-stats message accepted from this stream's publisher, however old.
    package var senderStats: SenderStatsMessage?
    /// Whether the publisher is sending, as this report tells (`nil` before the stream's first report).
    package var publisherSending: PublisherSending?

    /// The media link's stats of this report, if it had them.
    package var mediaLink: SubscriberMediaLinkStats? {
        callbacks.lazy.compactMap { if case .subscriberMediaLinkStatsUpdated(let stats) = $0.event { stats } else { nil } }.last
    }
    /// The video's stats of this report, if it had them.
    package var video: SubscriberVideoNetworkStats? {
        callbacks.lazy.compactMap { if case .subscriberVideoNetworkStatsUpdated(let stats) = $0.event { stats } else { nil } }.last
    }
    /// The audio's stats of this report, if it had them.
    package var audio: SubscriberAudioNetworkStats? {
        callbacks.lazy.compactMap { if case .subscriberAudioNetworkStatsUpdated(let stats) = $0.event { stats } else { nil } }.last
    }
}

extension SubscriberStatsMonitor {
    /// Feeds one report of `peerConnection` like ``ingest(_:peerConnection:)`` and reads
    /// everything a call needs from it (see ``SubscriberReading``).
    package func read(_ report: StatsReport, peerConnection: PeerConnectionID) -> SubscriberReading {
        let callbacks = ingest(report, peerConnection: peerConnection, whenUnheard: true)
        return core.withEngine { engine in
            SubscriberReading(callbacks: callbacks, connection: pathWatch.read(report, of: peerConnection),
                              decodedVideo: DecodedVideoSize(decodedIn: report), reportTime: report.timestamp,
                              measuredDownlink: engine.measuredDownlink(endpoint: Self.endpoint, stream: binding.stream),
                              senderStats: engine.latestSenderStats(endpoint: Self.endpoint, publisher: binding.publisher),
                              publisherSending: engine.publisherSending(endpoint: Self.endpoint, stream: binding.stream))
        }
    }

    /// Between stats samples: the connection's progress and paths from `report`, without
    /// feeding the engine.
    package func readConnection(_ report: StatsReport, peerConnection: PeerConnectionID) -> ConnectionReading {
        core.withEngine { _ in pathWatch.read(report, of: peerConnection) }
    }
}
