/// Transport-level metrics shared by the audio and video of one connection.
public struct TransportStats: Sendable, Hashable {
    /// Estimated available bandwidth of the connection, bps (0 when unknown).
    public var connectionEstimatedBandwidth: Double
    /// Current condition score.
    public var networkCondition: NetworkCondition
    /// What set the condition.
    public var networkConditionReason: NetworkConditionReason

    /// Creates transport stats.
    public init(connectionEstimatedBandwidth: Double = 0, networkCondition: NetworkCondition = .unknown, networkConditionReason: NetworkConditionReason = .unknown) {
        self.connectionEstimatedBandwidth = connectionEstimatedBandwidth
        self.networkCondition = networkCondition
        self.networkConditionReason = networkConditionReason
    }

    /// Nothing known yet.
    public static let unknown = TransportStats()
}

/// Sender-side estimates a publisher shares with its subscribers (same values in a subscriber's
/// video and audio stats).
public struct SenderStats: Sendable, Hashable {
    /// The ceiling the publisher's congestion controller may allocate: the sum of the maximum
    /// bitrates of its active encodings, audio included (bps).
    public var connectionMaxAllocatedBitrate: Double
    /// The publisher's current uplink estimate (bps).
    public var connectionEstimatedBandwidth: Double

    /// Creates sender stats.
    public init(connectionMaxAllocatedBitrate: Double, connectionEstimatedBandwidth: Double) {
        self.connectionMaxAllocatedBitrate = connectionMaxAllocatedBitrate
        self.connectionEstimatedBandwidth = connectionEstimatedBandwidth
    }
}
