import CallScopeCore

/// One interval's inputs to the condition of a transport.
struct ConditionSample: Sendable, Hashable {
    /// Lost ÷ (sent or expected) over the interval; `nil` when unknown.
    var lossFraction: Double?
    /// Estimate ÷ demand; `nil` when either is unknown.
    var headroom: Double?
    /// The encoder says it is limited by bandwidth (publisher side).
    var bandwidthLimited: Bool
    /// The bandwidth estimate, bps, when known.
    var estimate: Double?
    /// Video is being sent/received.
    var videoOn: Bool
    /// Media flowed in the interval (samples without media do not count toward `known`).
    var hasMedia: Bool
    /// Round-trip time rose well above the connection's lowest: packets queue behind a
    /// bottleneck, so loss seen now is a bandwidth symptom rather than random loss.
    var queueing: Bool

    /// Creates a sample.
    init(lossFraction: Double?, headroom: Double?, bandwidthLimited: Bool = false, estimate: Double? = nil, videoOn: Bool = true, hasMedia: Bool = true, queueing: Bool = false) {
        self.queueing = queueing
        self.lossFraction = lossFraction
        self.headroom = headroom
        self.bandwidthLimited = bandwidthLimited
        self.estimate = estimate
        self.videoOn = videoOn
        self.hasMedia = hasMedia
    }
}

/// An adopted network condition and what set it: the level ``Hysteresis`` works on.
struct ConditionLevel: HysteresisLevel {
    var condition: NetworkCondition
    var reason: NetworkConditionReason

    /// A lower level, or the same level for another reason, is a change for the worse.
    func isWorse(than adopted: ConditionLevel) -> Bool {
        condition < adopted.condition || (condition == adopted.condition && reason != adopted.reason)
    }

    var adoptsImmediately: Bool { condition == .critical }
}

/// The network condition of one transport as a value-type state machine: a sample in, the
/// actions out. Each sample is classified by the thresholds, then ``Hysteresis`` decides
/// (a worse level after `degradeAfter` samples, `critical` at once, a better one after
/// `recoverAfter`); a change is reported only when the adopted level or reason changes.
struct ConditionScorer: Sendable {
    /// What the caller does after a sample.
    enum Action: Sendable, Hashable {
        /// The adopted condition or reason changed: fire `networkConditionChanged`.
        case conditionChanged(NetworkCondition, NetworkConditionReason)
    }

    let thresholds: ConditionThresholds
    private var hysteresis: Hysteresis<ConditionLevel>
    private var mediaSamples = 0

    init(thresholds: ConditionThresholds = .init()) {
        self.thresholds = thresholds
        hysteresis = Hysteresis(degradeAfter: thresholds.degradeAfter, recoverAfter: thresholds.recoverAfter)
    }

    /// The adopted condition (`unknown` until enough samples with media).
    var condition: NetworkCondition { hysteresis.adopted?.condition ?? .unknown }
    /// What set the adopted condition.
    var reason: NetworkConditionReason { hysteresis.adopted?.reason ?? .unknown }

    /// The instantaneous level and reason of one sample, without anti-flapping.
    func classify(_ sample: ConditionSample) -> (NetworkCondition, NetworkConditionReason) {
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
    ///
    /// `floor`, when given, is the best level the sample may be scored at (a known limit, e.g. a
    /// subscriber below the layer it asked for because its downlink cannot carry more): a
    /// candidate at or better than the floor becomes the floor, a worse one stays.
    /// `criticalAfter`, when given, is how many consecutive worse samples `critical` needs
    /// instead of being adopted at once (see ``Hysteresis/receive(_:immediateAfter:)``).
    mutating func receive(_ sample: ConditionSample, floor: ConditionLevel? = nil, criticalAfter: Int? = nil) -> [Action] {
        if sample.hasMedia { mediaSamples += 1 }
        let (level, cause) = classify(sample)
        guard mediaSamples >= thresholds.samplesBeforeKnown, level != .unknown else {
            hysteresis.resetPending()
            return []
        }
        var candidate = ConditionLevel(condition: level, reason: cause)
        if let floor, candidate.condition >= floor.condition { candidate = floor }
        return hysteresis.receive(candidate, immediateAfter: criticalAfter).map { action in
            switch action {
            case .adopt(let adopted): .conditionChanged(adopted.condition, adopted.reason)
            }
        }
    }
}
