/// Every threshold of the network-condition scorer, in one value. Defaults are the spec's
/// starting point (docs/spec/observability.md §5), tuned on real calls (docs/network-condition.md).
public struct ConditionThresholds: Sendable, Hashable {
    /// One bound per level: for loss the upper bounds, for headroom the lower bounds.
    public struct LevelBounds: Sendable, Hashable {
        /// The bound of `excellent`.
        public var excellent: Double
        /// The bound of `good`.
        public var good: Double
        /// The bound of `fair`.
        public var fair: Double
        /// The bound of `warning` (past it is `critical`).
        public var warning: Double

        /// Creates bounds, best level first.
        public init(excellent: Double, good: Double, fair: Double, warning: Double) {
            self.excellent = excellent
            self.good = good
            self.fair = fair
            self.warning = warning
        }
    }

    /// Loss fraction upper bounds for `excellent`, `good`, `fair`, `warning` (≥ the last is `critical`).
    public var loss: LevelBounds
    /// Bandwidth headroom (estimate ÷ demand) lower bounds for `good`, `fair`, `warning`
    /// (≥ `excellent` and not bandwidth-limited is `excellent`; below `warning` is `critical`).
    public var headroom: LevelBounds
    /// An estimate below this while video is on is `critical`, bps.
    public var minimumVideoBandwidth: Double
    /// Consecutive worse samples before a worse level is adopted (`critical` is adopted at once).
    public var degradeAfter: Int
    /// Consecutive better samples before a better level is adopted.
    public var recoverAfter: Int
    /// Media samples needed before the condition leaves `unknown`.
    public var samplesBeforeKnown: Int

    /// The defaults: the spec's, as tuned on real calls (docs/network-condition.md).
    public init(
        loss: LevelBounds = LevelBounds(excellent: 0.01, good: 0.025, fair: 0.05, warning: 0.15),
        headroom: LevelBounds = LevelBounds(excellent: 1.0, good: 0.8, fair: 0.5, warning: 0.25),
        minimumVideoBandwidth: Double = 100_000,
        degradeAfter: Int = 2,
        recoverAfter: Int = 5,
        samplesBeforeKnown: Int = 2
    ) {
        self.loss = loss
        self.headroom = headroom
        self.minimumVideoBandwidth = minimumVideoBandwidth
        self.degradeAfter = degradeAfter
        self.recoverAfter = recoverAfter
        self.samplesBeforeKnown = samplesBeforeKnown
    }

    /// The level a loss fraction alone gives.
    public func level(forLoss fraction: Double) -> NetworkCondition {
        if fraction < loss.excellent { return .excellent }
        if fraction < loss.good { return .good }
        if fraction < loss.fair { return .fair }
        if fraction < loss.warning { return .warning }
        return .critical
    }

    /// The level a bandwidth headroom alone gives.
    public func level(forHeadroom ratio: Double, bandwidthLimited: Bool, estimate: Double?, videoOn: Bool) -> NetworkCondition {
        if videoOn, let estimate, estimate < minimumVideoBandwidth { return .critical }
        if ratio >= headroom.excellent, !bandwidthLimited { return .excellent }
        if ratio >= headroom.good { return .good }
        if ratio >= headroom.fair { return .fair }
        if ratio >= headroom.warning { return .warning }
        return .critical
    }
}
