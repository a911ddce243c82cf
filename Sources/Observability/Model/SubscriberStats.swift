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
    /// Decoded frames per second.
    public var decodedFrameRate: Double
    /// Payload bitrate, bps.
    public var bitrate: Double
    /// Bitrate including RTP headers and padding, bps.
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
