/// Every threshold of the network-condition scorer, in one value. Defaults are the spec's
/// starting point (observability.md §5); see the README for the values tuned on real calls.
public struct ConditionThresholds: Sendable, Hashable {
    /// Loss fraction upper bounds for `excellent`, `good`, `fair`, `warning` (≥ the last is `critical`).
    public var loss: (excellent: Double, good: Double, fair: Double, warning: Double)
    /// Bandwidth headroom (estimate ÷ demand) lower bounds for `good`, `fair`, `warning`
    /// (≥ `excellent` and not bandwidth-limited is `excellent`; below `warning` is `critical`).
    public var headroom: (excellent: Double, good: Double, fair: Double, warning: Double)
    /// An estimate below this while video is on is `critical`, bps.
    public var minimumVideoBandwidth: Double
    /// Consecutive worse samples before a worse level is adopted (`critical` is adopted at once).
    public var degradeAfter: Int
    /// Consecutive better samples before a better level is adopted.
    public var recoverAfter: Int
    /// Media samples needed before the condition leaves `unknown`.
    public var samplesBeforeKnown: Int

    /// The spec's defaults.
    public init(
        loss: (excellent: Double, good: Double, fair: Double, warning: Double) = (0.01, 0.025, 0.05, 0.15),
        headroom: (excellent: Double, good: Double, fair: Double, warning: Double) = (1.0, 0.8, 0.5, 0.25),
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

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.loss == rhs.loss && lhs.headroom == rhs.headroom && lhs.minimumVideoBandwidth == rhs.minimumVideoBandwidth
            && lhs.degradeAfter == rhs.degradeAfter && lhs.recoverAfter == rhs.recoverAfter && lhs.samplesBeforeKnown == rhs.samplesBeforeKnown
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(loss.excellent)
        hasher.combine(headroom.excellent)
        hasher.combine(degradeAfter)
        hasher.combine(recoverAfter)
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
