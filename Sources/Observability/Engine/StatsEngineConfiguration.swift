/// Settings of the stats engine. Defaults follow the spec (docs/spec/observability.md).
public struct StatsEngineConfiguration: Sendable, Hashable {
    /// The sampling interval, ms (`statsInterval`, default 1 s).
    public var intervalMilliseconds: Double
    /// A sample further than this from the previous one yields no rate (default 3 × interval).
    public var maximumRateGapMilliseconds: Double
    /// A subscriber with no rendered frame for longer than this is paused (default 5 s).
    public var pauseThresholdMilliseconds: Double
    /// The network-condition thresholds.
    public var thresholds: ConditionThresholds
    /// The publisher's `connectionMaxAllocatedBitrate` (Σ of its encodings' maximum bitrates,
    /// audio included), which the SDK knows from its settings; when `nil`, the highest total
    /// `targetBitrate` seen so far stands in.
    public var maxAllocatedBitrate: Double?
    /// Sender stats older than this are stale (default 5 s).
    public var senderStatsLifetimeMilliseconds: Double
    /// An RTT this far above the connection's lowest is queueing behind a bottleneck (ms).
    public var queueingDelayMilliseconds: Double
    /// A subscriber's downlink loss is measured over this many intervals (default 2).
    public var downlinkLossWindow: Int

    /// Creates a configuration.
    public init(intervalMilliseconds: Double = 1000, maximumRateGapMilliseconds: Double? = nil, pauseThresholdMilliseconds: Double = 5000,
                thresholds: ConditionThresholds = .init(), maxAllocatedBitrate: Double? = nil, senderStatsLifetimeMilliseconds: Double = 5000,
                queueingDelayMilliseconds: Double = 50, downlinkLossWindow: Int = 2) {
        self.downlinkLossWindow = downlinkLossWindow
        self.intervalMilliseconds = intervalMilliseconds
        self.maximumRateGapMilliseconds = maximumRateGapMilliseconds ?? 3 * intervalMilliseconds
        self.pauseThresholdMilliseconds = pauseThresholdMilliseconds
        self.thresholds = thresholds
        self.maxAllocatedBitrate = maxAllocatedBitrate
        self.senderStatsLifetimeMilliseconds = senderStatsLifetimeMilliseconds
        self.queueingDelayMilliseconds = queueingDelayMilliseconds
    }
}
