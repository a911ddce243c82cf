@testable import Observability

/// Hand-made callbacks with round numbers, so expected metrics can be worked out by hand.
enum Fixture {
    static func subscriberVideo(at time: Double, bytes: UInt64, received: UInt64, lost: UInt64, bitrate: Double, freezes: Int = 0, freezeMs: Double = 0, height: Int = 360) -> StatsCallback {
        let stats = SubscriberVideoNetworkStats(
            videoPacketsLost: lost, videoPacketsReceived: received, videoBytesReceived: bytes, timestamp: time, startTime: 0,
            senderStats: nil, width: height * 16 / 9, height: height, decodedFrameRate: 30, bitrate: bitrate, totalBitrate: bitrate * 1.05,
            pauseCount: 0, totalPausesDuration: 0, freezeCount: freezes, totalFreezesDuration: freezeMs, codec: "VP8")
        return StatsCallback(time: time, endpoint: "subscriber", peerConnection: "sub-1", stream: "cam", event: .subscriberVideoNetworkStatsUpdated(stats))
    }

    static func subscriberLink(at time: Double, downlink: NetworkCondition, remote: NetworkCondition = .good, source: NetworkDegradationSource) -> StatsCallback {
        let stats = SubscriberMediaLinkStats(
            transport: TransportStats(connectionEstimatedBandwidth: 2_000_000, networkCondition: downlink, networkConditionReason: downlink.isDegraded ? .packetLoss : .none),
            remotePublisherTransport: TransportStats(connectionEstimatedBandwidth: 1_000_000, networkCondition: remote, networkConditionReason: .none),
            networkDegradationSource: source)
        return StatsCallback(time: time, endpoint: "subscriber", peerConnection: "sub-1", stream: "cam", event: .subscriberMediaLinkStatsUpdated(stats))
    }

    static func publisherVideo(at time: Double, layers: [(rid: String, bitrate: Double)], sent: UInt64 = 1000, lost: UInt64 = 10) -> StatsCallback {
        let layerStats = layers.map { PublisherVideoLayerStats(width: 640, height: 360, encodedFrameRate: 30, bitrate: $0.bitrate, totalBitrate: $0.bitrate + 8000, rid: $0.rid) }
        let stats = PublisherVideoNetworkStats(
            connectionId: "", subscriberId: "", videoPacketsLost: lost, videoPacketsSent: sent, videoBytesSent: sent * 1000,
            videoFrameRate: 30, timestamp: time, startTime: 0, videoLayers: layerStats, transport: .unknown)
        return StatsCallback(time: time, endpoint: "publisher", peerConnection: "pub-1", stream: nil, event: .publisherVideoNetworkStatsUpdated([stats]))
    }

    static func publisherLink(at time: Double, condition: NetworkCondition) -> StatsCallback {
        let stats = PublisherMediaLinkStats(connectionId: "", subscriberId: "", transport: TransportStats(connectionEstimatedBandwidth: 1_500_000, networkCondition: condition, networkConditionReason: .bandwidth))
        return StatsCallback(time: time, endpoint: "publisher", peerConnection: "pub-1", stream: nil, event: .publisherMediaLinkStatsUpdated([stats]))
    }
}
