/// A subscriber's video statistics.
public struct SubscriberVideoNetworkStats: Sendable, Hashable {
    /// Packets lost, cumulative.
    public var videoPacketsLost: UInt64
    /// Packets received, cumulative.
    public var videoPacketsReceived: UInt64
    /// Payload bytes received, cumulative.
    public var videoBytesReceived: UInt64
    /// Unix ms of the sample.
    public var timestamp: Double
    /// Unix ms from which the totals count.
    public var startTime: Double
    /// The publisher's sender-side estimates; `nil` when none arrived in the last 5 s.
    public var senderStats: SenderStats?
    /// Decoded frame width, px.
    public var width: Int
    /// Decoded frame height, px.
    public var height: Int
    /// Decoded frames per second (0 when unknown: then ``unmeasured`` contains `.frameRate`).
    public var decodedFrameRate: Double
    /// Payload bitrate, bps (0 when unknown: then ``unmeasured`` contains `.bitrate`).
    public var bitrate: Double
    /// Bitrate including RTP headers and padding, bps (0 when unknown, as ``bitrate``).
    public var totalBitrate: Double
    /// Pauses (> 5 s without a rendered frame), counted when the next frame renders.
    public var pauseCount: Int
    /// Total pause duration, ms.
    public var totalPausesDuration: Double
    /// Freezes (the W3C rule), cumulative.
    public var freezeCount: Int
    /// Total freeze duration, ms.
    public var totalFreezesDuration: Double
    /// Current decoder codec mime subtype, e.g. `VP8`.
    public var codec: String?
    /// The rates of this sample that could not be measured (the first sample, one after a
    /// gap): `.bitrate`, `.frameRate` (see ``UnmeasuredValues``).
    public var unmeasured: UnmeasuredValues = []
    /// This subscriber's media link when the stats come with a network-condition change (the
    /// `subscriber(_:networkConditionChanged:audioStats:reason:)` form); `nil` in the periodic
    /// video stats, which come before their sample's media-link stats.
    public var mediaLink: SubscriberMediaLinkStats?

    /// This subscriber's downlink, as ``SubscriberMediaLinkStats/transport`` (`nil` without
    /// ``mediaLink``).
    public var transport: TransportStats? { mediaLink?.transport }
    /// The remote publisher's uplink, as ``SubscriberMediaLinkStats/remotePublisherTransport``
    /// (`nil` without ``mediaLink``).
    public var remotePublisherTransport: TransportStats? { mediaLink?.remotePublisherTransport }
    /// Which side is responsible for a degradation (`unknown` without ``mediaLink``).
    public var networkDegradationSource: NetworkDegradationSource { mediaLink?.networkDegradationSource ?? .unknown }
}

/// A subscriber's audio statistics.
public struct SubscriberAudioNetworkStats: Sendable, Hashable {
    /// Packets lost, cumulative.
    public var audioPacketsLost: UInt64
    /// Packets received, cumulative.
    public var audioPacketsReceived: UInt64
    /// Payload bytes received, cumulative.
    public var audioBytesReceived: UInt64
    /// Unix ms of the sample.
    public var timestamp: Double
    /// Unix ms from which the totals count.
    public var startTime: Double
    /// The publisher's sender-side estimates; `nil` when none arrived in the last 5 s.
    public var senderStats: SenderStats?
}

/// A subscriber's transport-level statistics.
public struct SubscriberMediaLinkStats: Sendable, Hashable {
    /// This subscriber's downlink.
    public var transport: TransportStats
    /// The remote publisher's uplink, from sender stats (`unknown` without them).
    public var remotePublisherTransport: TransportStats
    /// Which side is responsible for a degradation.
    public var networkDegradationSource: NetworkDegradationSource
}
