/// One simulcast encoding or SVC layer that is sending.
public struct PublisherVideoLayerStats: Sendable, Hashable {
    /// Encoded frame width (`frameWidth`), px.
    public var width: Int
    /// Encoded frame height (`frameHeight`), px.
    public var height: Int
    /// Encoded frames per second (0 when unknown: then ``unmeasured`` contains `.frameRate`).
    public var encodedFrameRate: Double
    /// Payload bitrate, 8·Δ`bytesSent`/Δt, bps (0 when unknown: then ``unmeasured`` contains
    /// `.bitrate`).
    public var bitrate: Double
    /// Bitrate including RTP headers and padding, 8·Δ(`bytesSent`+`headerBytesSent`)/Δt, bps
    /// (0 when unknown, as ``bitrate``).
    public var totalBitrate: Double
    /// SVC/scalability descriptor, e.g. `L1T3`.
    public var scalabilityMode: String?
    /// Why this layer's quality is limited.
    public var qualityLimitationReason: QualityLimitationReason
    /// Codec mime subtype, e.g. `VP8`.
    public var codec: String?
    /// The simulcast `rid`, when the layer has one (beyond docs/spec/observability.md; handy for debugging).
    public var rid: String?
    /// The rates of this sample that could not be measured (a layer's first sample, one after
    /// a gap): `.bitrate`, `.frameRate` (see ``UnmeasuredValues``).
    public var unmeasured: UnmeasuredValues

    /// Creates layer stats.
    public init(width: Int, height: Int, encodedFrameRate: Double, bitrate: Double, totalBitrate: Double, scalabilityMode: String? = nil, qualityLimitationReason: QualityLimitationReason = .none, codec: String? = nil, rid: String? = nil,
                unmeasured: UnmeasuredValues = []) {
        self.unmeasured = unmeasured
        self.width = width
        self.height = height
        self.encodedFrameRate = encodedFrameRate
        self.bitrate = bitrate
        self.totalBitrate = totalBitrate
        self.scalabilityMode = scalabilityMode
        self.qualityLimitationReason = qualityLimitationReason
        self.codec = codec
        self.rid = rid
    }
}

/// A publisher's video statistics for one connection (routed: the single one; relayed: one per
/// subscriber).
public struct PublisherVideoNetworkStats: Sendable, Hashable {
    /// Relayed: the subscribing client's connection id; empty when routed.
    public var connectionId: String
    /// Relayed: the subscriber id; empty when routed.
    public var subscriberId: String
    /// Σ `remote-inbound-rtp.packetsLost` of the video SSRCs, cumulative.
    public var videoPacketsLost: UInt64
    /// Packets sent, all layers, cumulative.
    public var videoPacketsSent: UInt64
    /// Payload bytes sent, all layers, cumulative.
    public var videoBytesSent: UInt64
    /// Frame rate of the highest sending layer, frames/s (0 when unknown: then ``unmeasured``
    /// contains `.frameRate`; a real 0 with no layer sending).
    public var videoFrameRate: Double
    /// Unix ms of the sample.
    public var timestamp: Double
    /// Unix ms from which the totals count.
    public var startTime: Double
    /// Sending layers, low to high.
    public var videoLayers: [PublisherVideoLayerStats]
    /// The uplink.
    public var transport: TransportStats
    /// `.frameRate` when ``videoFrameRate`` could not be measured (see ``UnmeasuredValues``).
    public var unmeasured: UnmeasuredValues = []
}

/// A publisher's audio statistics for one connection.
public struct PublisherAudioNetworkStats: Sendable, Hashable {
    /// Relayed: the subscribing client's connection id; empty when routed.
    public var connectionId: String
    /// Relayed: the subscriber id; empty when routed.
    public var subscriberId: String
    /// Σ `remote-inbound-rtp.packetsLost` of the audio SSRCs, cumulative.
    public var audioPacketsLost: UInt64
    /// Packets sent, cumulative.
    public var audioPacketsSent: UInt64
    /// Payload bytes sent, cumulative.
    public var audioBytesSent: UInt64
    /// Unix ms of the sample.
    public var timestamp: Double
    /// Unix ms from which the totals count.
    public var startTime: Double
    /// The uplink.
    public var transport: TransportStats
}

/// A publisher's transport-level statistics for one connection.
public struct PublisherMediaLinkStats: Sendable, Hashable {
    /// Relayed: the subscribing client's connection id; empty when routed.
    public var connectionId: String
    /// Relayed: the subscriber id; empty when routed.
    public var subscriberId: String
    /// This publisher's uplink.
    public var transport: TransportStats
}
