/// Settings of the stats engine. Defaults follow the spec.
public struct StatsEngineConfiguration: Sendable, Hashable {
    /// The sampling interval, ms (`statsInterval`, default 1 s).
    public var intervalMilliseconds: Double
    /// A sample further than this from the previous one yields no rate (default 3 × interval).
    public var maximumRateGapMilliseconds: Double
    /// A subscriber with no rendered frame for longer than this is paused (default 5 s).
    public var pauseThresholdMilliseconds: Double

    /// Creates a configuration.
    public init(intervalMilliseconds: Double = 1000, maximumRateGapMilliseconds: Double? = nil, pauseThresholdMilliseconds: Double = 5000) {
        self.intervalMilliseconds = intervalMilliseconds
        self.maximumRateGapMilliseconds = maximumRateGapMilliseconds ?? 3 * intervalMilliseconds
        self.pauseThresholdMilliseconds = pauseThresholdMilliseconds
    }
}
