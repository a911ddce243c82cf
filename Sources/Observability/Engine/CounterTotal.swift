/// A total that stays monotonic while the counters feeding it come and go.
///
/// Each source is one browser counter (the `bytesSent` of one SSRC on one peer connection);
/// its previous value lives with the caller's per-source memory and is passed in. All the
/// checks counters need are here, once:
/// - a source seen for the first time contributes its whole value (its counter started at zero
///   when its connection or SSRC did), but no increase is reported, so no rate;
/// - a value below the previous one is a reset: nothing is added, no rate, and later values
///   count from the new one;
/// - non-finite, negative or absurd (above 2^53) values are ignored and leave the previous
///   value as it was.
struct CounterTotal: Sendable {
    /// The running total.
    private(set) var total: Double = 0

    /// Moves one source from `previous` to `current`; returns the trustworthy increase, or
    /// `nil` (first sight, reset, or a bad value).
    @discardableResult
    mutating func advance(_ previous: inout Double?, to current: Double?) -> Double? {
        let firstSight = previous == nil
        let increase = Self.increase(&previous, to: current)
        if let increase {
            total += increase
        } else if firstSight, let first = previous {
            total += first
        }
        return increase
    }

    /// The increase of one counter from `previous` to `current` (updating `previous`), with the
    /// same rules but no total: for counters that only feed a rate.
    static func increase(_ previous: inout Double?, to current: Double?) -> Double? {
        // No real counter reaches 2^53; larger values are not counts.
        guard let current, current.isFinite, current >= 0, current <= 9_007_199_254_740_992 else { return nil }
        defer { previous = current }
        guard let last = previous, current >= last else { return nil }
        return current - last
    }

    /// The total as an unsigned count.
    var count: UInt64 { UInt64(Swift.max(0, total.clampedInt)) }
}

/// Rates from two samples of the same counters, checked once.
enum RateCalculator {
    /// Bits per second from a byte increase over `milliseconds`; `nil` without a usable interval.
    static func bitsPerSecond(bytes: Double?, milliseconds: Double?) -> Double? {
        guard let bytes, let milliseconds, milliseconds > 0 else { return nil }
        return 8 * bytes * 1000 / milliseconds
    }

    /// Events per second from an increase over `milliseconds`.
    static func perSecond(_ increase: Double?, milliseconds: Double?) -> Double? {
        guard let increase, let milliseconds, milliseconds > 0 else { return nil }
        return increase * 1000 / milliseconds
    }

    /// The time since a source's previous sample when it can carry a rate: positive and no
    /// longer than `maximumGap`.
    static func usableInterval(from previous: Double?, to current: Double, maximumGap: Double) -> Double? {
        guard let previous else { return nil }
        let elapsed = current - previous
        return elapsed > 0 && elapsed <= maximumGap ? elapsed : nil
    }
}
