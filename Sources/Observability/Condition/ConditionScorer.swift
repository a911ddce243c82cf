/// One interval's inputs to the condition of a transport.
public struct ConditionSample: Sendable, Hashable {
    /// Lost ÷ (sent or expected) over the interval; `nil` when unknown.
    public var lossFraction: Double?
    /// Estimate ÷ demand; `nil` when either is unknown.
    public var headroom: Double?
    /// The encoder says it is limited by bandwidth (publisher side).
    public var bandwidthLimited: Bool
    /// The bandwidth estimate, bps, when known.
    public var estimate: Double?
    /// Video is being sent/received.
    public var videoOn: Bool
    /// Media flowed in the interval (samples without media do not count toward `known`).
    public var hasMedia: Bool
    /// Round-trip time rose well above the connection's lowest: packets queue behind a
    /// bottleneck, so loss seen now is a bandwidth symptom rather than random loss.
    public var queueing: Bool

    /// Creates a sample.
    public init(lossFraction: Double?, headroom: Double?, bandwidthLimited: Bool = false, estimate: Double? = nil, videoOn: Bool = true, hasMedia: Bool = true, queueing: Bool = false) {
        self.queueing = queueing
        self.lossFraction = lossFraction
        self.headroom = headroom
        self.bandwidthLimited = bandwidthLimited
        self.estimate = estimate
        self.videoOn = videoOn
        self.hasMedia = hasMedia
    }
}

/// The network condition of one transport as a value-type state machine: a sample in, the
/// actions out. Anti-flapping: a worse level is adopted after `degradeAfter` consecutive worse
/// samples (`critical` at once), a better one after `recoverAfter` consecutive better samples;
/// a change is reported only when the adopted level or reason changes.
public struct ConditionScorer: Sendable {
    /// What the caller should do after a sample.
    public enum Action: Sendable, Hashable {
        /// The adopted condition or reason changed: fire `networkConditionChanged`.
        case conditionChanged(NetworkCondition, NetworkConditionReason)
    }

    /// The thresholds.
    public let thresholds: ConditionThresholds
    /// The adopted condition.
    public private(set) var condition: NetworkCondition = .unknown
    /// What set the adopted condition.
    public private(set) var reason: NetworkConditionReason = .unknown
    private var mediaSamples = 0
    private var pending: (condition: NetworkCondition, reason: NetworkConditionReason)?
    private var pendingCount = 0

    /// Creates a scorer.
    public init(thresholds: ConditionThresholds = .init()) {
        self.thresholds = thresholds
    }

    /// The instantaneous level and reason of one sample, without anti-flapping.
    public func classify(_ sample: ConditionSample) -> (NetworkCondition, NetworkConditionReason) {
        // Non-finite inputs are unknown inputs, never a level.
        let lossLevel = sample.lossFraction.flatMap { $0.isFinite ? thresholds.level(forLoss: max(0, $0)) : nil }
        let estimate = sample.estimate.flatMap { $0.isFinite ? $0 : nil }
        var bandwidthLevel = sample.headroom.flatMap { $0.isFinite ? $0 : nil }.map {
            thresholds.level(forHeadroom: max(0, $0), bandwidthLimited: sample.bandwidthLimited, estimate: estimate, videoOn: sample.videoOn)
        }
        if bandwidthLevel == nil, sample.videoOn, let estimate, estimate < thresholds.minimumVideoBandwidth {
            bandwidthLevel = .critical
        }
        if bandwidthLevel == nil, sample.bandwidthLimited { bandwidthLevel = .good }
        // Loss while packets queue is what a bandwidth cap looks like from the ends.
        let lossReason: NetworkConditionReason = sample.queueing ? .bandwidth : .packetLoss
        switch (lossLevel, bandwidthLevel) {
        case (nil, nil): return (.unknown, .unknown)
        case (let loss?, nil): return (loss, loss >= .good ? .none : lossReason)
        case (nil, let bandwidth?): return (bandwidth, bandwidth >= .good ? .none : .bandwidth)
        case (let loss?, let bandwidth?):
            // The worse input sets the level; a tie goes to bandwidth (loss bursts are what a
            // sender overshooting a cap sees, while random loss leaves the estimate higher).
            let level = min(loss, bandwidth)
            if level >= .good { return (level, .none) }
            return (level, loss < bandwidth ? lossReason : .bandwidth)
        }
    }

    /// Feeds one sample; returns what to do.
    public mutating func receive(_ sample: ConditionSample) -> [Action] {
        if sample.hasMedia { mediaSamples += 1 }
        let (level, cause) = classify(sample)
        guard mediaSamples >= thresholds.samplesBeforeKnown, level != .unknown else {
            pending = nil
            pendingCount = 0
            return []
        }
        if condition == .unknown {
            return adopt(level, cause)
        }
        if level == condition, cause == reason {
            pending = nil
            pendingCount = 0
            return []
        }
        let worse = level < condition || (level == condition && cause != reason)
        if let current = pending, (current.condition < condition || (current.condition == condition && current.reason != reason)) == worse {
            pendingCount += 1
        } else {
            pendingCount = 1
        }
        pending = (level, cause)
        if worse {
            if level == .critical || pendingCount >= thresholds.degradeAfter { return adopt(level, cause) }
        } else if pendingCount >= thresholds.recoverAfter {
            return adopt(level, cause)
        }
        return []
    }

    private mutating func adopt(_ level: NetworkCondition, _ cause: NetworkConditionReason) -> [Action] {
        pending = nil
        pendingCount = 0
        guard level != condition || cause != reason else { return [] }
        condition = level
        reason = cause
        return [.conditionChanged(level, cause)]
    }
}
