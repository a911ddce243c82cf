/// Overall state of one transport (a publisher's uplink or a subscriber's downlink).
public enum NetworkCondition: String, Sendable, Hashable, CaseIterable, Comparable {
    case unknown, critical, warning, fair, good, excellent

    /// Worse conditions sort first; `unknown` sorts before all.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// The position in `allCases`, as a switch: `allCases.firstIndex` builds an array per call.
    var rank: Int {
        switch self {
        case .unknown: 0
        case .critical: 1
        case .warning: 2
        case .fair: 3
        case .good: 4
        case .excellent: 5
        }
    }

    /// `warning` or `critical`.
    public var isDegraded: Bool { self == .warning || self == .critical }
}

/// What set a ``NetworkCondition``.
public enum NetworkConditionReason: String, Sendable, Hashable, CaseIterable {
    case none, unknown, bandwidth, packetLoss
}

/// Why a publisher layer's quality is limited. W3C `bandwidth`, `cpu` and `other` map directly;
/// the rest are derived from what changed in the interval.
public enum QualityLimitationReason: String, Sendable, Hashable, CaseIterable {
    case none, bandwidth, cpu, codec, resolution, layerChange, other

    /// The reason a W3C `qualityLimitationReason` names (`none`, `bandwidth`, `cpu`, `other`);
    /// anything else, or nothing, is `none`.
    init(w3c value: String?) {
        switch value {
        case "bandwidth": self = .bandwidth
        case "cpu": self = .cpu
        case "other": self = .other
        default: self = .none
        }
    }
}

/// A newly adopted network condition and what set it.
struct NetworkConditionChange: Sendable, Hashable {
    var condition: NetworkCondition
    var reason: NetworkConditionReason

    init(_ action: ConditionScorer.Action) {
        switch action {
        case .conditionChanged(let condition, let reason):
            self.condition = condition
            self.reason = reason
        }
    }

    init(condition: NetworkCondition, reason: NetworkConditionReason) {
        self.condition = condition
        self.reason = reason
    }
}

/// Which side of a subscriber's media path is responsible for a degradation.
public enum NetworkDegradationSource: String, Sendable, Hashable, CaseIterable {
    case none, local, remote, bothOrUnclear, unknown
}
