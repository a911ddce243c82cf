import CallScopeCore

/// A participant's connection quality from round-trip time, jitter and loss
/// (docs/spec/observability.md §8): the
/// E-model's R factor and MOS, mapped to levels, with the condition scorer's anti-flapping
/// (``Hysteresis``: a worse level after 2 samples, a better one after 5). Reports only level
/// changes.
struct ConnectionQualityScorer: Sendable {
    private var hysteresis: Hysteresis<ConnectionQuality>

    init(degradeAfter: Int = 2, recoverAfter: Int = 5) {
        hysteresis = Hysteresis(degradeAfter: degradeAfter, recoverAfter: recoverAfter)
    }

    /// The adopted level.
    var level: ConnectionQuality { hysteresis.adopted ?? .unknown }

    /// R = 93.2 − L/40 (L < 160 ms) or 93.2 − (L − 120)/10, L = RTT + 2·jitter + 10 ms, minus
    /// 2.5 per % loss.
    static func rFactor(roundTripMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double {
        let latency = rtt + 2 * jitter + 10
        let base = latency < 160 ? 93.2 - latency / 40 : 93.2 - (latency - 120) / 10
        return base - 2.5 * lossPercent
    }

    /// MOS = 1 + 0.035R + 7·10⁻⁶·R(R−60)(100−R), for R clamped to 0…100.
    static func meanOpinionScore(rFactor: Double) -> Double {
        let r = min(100, max(0, rFactor))
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
    }

    /// The level of a MOS.
    static func level(mos: Double) -> ConnectionQuality {
        if mos >= 4.2 { return .excellent }
        if mos >= 3.8 { return .good }
        if mos >= 3.3 { return .fair }
        if mos >= 2.6 { return .poor }
        return .bad
    }

    /// Feeds one interval; returns the new level when the adopted level changed.
    mutating func receive(roundTripMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> ConnectionQuality? {
        guard rtt.isFinite, jitter.isFinite, lossPercent.isFinite, rtt >= 0, jitter >= 0, lossPercent >= 0 else { return nil }
        let candidate = Self.level(mos: Self.meanOpinionScore(rFactor: Self.rFactor(roundTripMilliseconds: rtt, jitterMilliseconds: jitter, lossPercent: lossPercent)))
        guard case .adopt(let adopted)? = hysteresis.receive(candidate).first else { return nil }
        return adopted
    }
}

extension ConnectionQuality: HysteresisLevel {
    package func isWorse(than adopted: ConnectionQuality) -> Bool { self < adopted }
}
