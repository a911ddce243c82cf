/// Transport-level metrics shared by the audio and video of one connection.
public struct TransportStats: Sendable, Hashable {
    /// Estimated available bandwidth of the connection, bps (0 when unknown: then
    /// ``unmeasured`` contains `.estimatedBandwidth`).
    public var connectionEstimatedBandwidth: Double
    /// Current condition score.
    public var networkCondition: NetworkCondition
    /// What set the condition.
    public var networkConditionReason: NetworkConditionReason
    /// `.estimatedBandwidth` when there is no estimate (see ``UnmeasuredValues``).
    public var unmeasured: UnmeasuredValues

    /// Creates transport stats.
    public init(connectionEstimatedBandwidth: Double = 0, networkCondition: NetworkCondition = .unknown, networkConditionReason: NetworkConditionReason = .unknown,
                unmeasured: UnmeasuredValues = []) {
        self.connectionEstimatedBandwidth = connectionEstimatedBandwidth
        self.networkCondition = networkCondition
        self.networkConditionReason = networkConditionReason
        self.unmeasured = unmeasured
    }

    /// Transport stats whose estimate is `estimate` when there is one (0 and
    /// `.estimatedBandwidth` unmeasured when `nil`).
    public init(estimate: Double?, networkCondition: NetworkCondition = .unknown, networkConditionReason: NetworkConditionReason = .unknown) {
        self.init(connectionEstimatedBandwidth: estimate ?? 0, networkCondition: networkCondition, networkConditionReason: networkConditionReason,
                  unmeasured: estimate == nil ? .estimatedBandwidth : [])
    }

    /// Nothing known yet.
    public static let unknown = TransportStats(unmeasured: .estimatedBandwidth)
}

/// Sender-side estimates a publisher shares with its subscribers (same values in a subscriber's
/// video and audio stats).
public struct SenderStats: Sendable, Hashable {
    /// The ceiling the publisher's congestion controller may allocate: the sum of the maximum
    /// bitrates of its active encodings, audio included (bps).
    public var connectionMaxAllocatedBitrate: Double
    /// The publisher's current uplink estimate (bps; 0 when it has none: then ``unmeasured``
    /// contains `.estimatedBandwidth`).
    public var connectionEstimatedBandwidth: Double
    /// `.estimatedBandwidth` when the publisher has no uplink estimate (see ``UnmeasuredValues``).
    public var unmeasured: UnmeasuredValues

    /// Creates sender stats.
    public init(connectionMaxAllocatedBitrate: Double, connectionEstimatedBandwidth: Double, unmeasured: UnmeasuredValues = []) {
        self.connectionMaxAllocatedBitrate = connectionMaxAllocatedBitrate
        self.connectionEstimatedBandwidth = connectionEstimatedBandwidth
        self.unmeasured = unmeasured
    }
}
