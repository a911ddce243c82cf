/// A total that stays monotonic while the counters feeding it come and go.
///
/// Each source is one browser counter (a `bytesSent` of one SSRC on one peer connection).
/// All the checks counters need live here, once:
/// - a source seen for the first time contributes its whole value (its counter started at zero
///   when its connection or SSRC did), but no rate;
/// - a value below the previous one is a reset: nothing is added, no rate, and later values
///   count from the new one;
/// - non-finite or negative values are ignored.
struct CumulativeCounter: Sendable {
    private var lastBySource: [String: Double] = [:]
    /// The running total.
    private(set) var total: Double = 0

    /// Feeds one source's current value; returns the increase since that source's previous
    /// value, or `nil` when there is no trustworthy increase (new source, reset, bad value).
    @discardableResult
    mutating func update(source: String, value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        guard let previous = lastBySource[source] else {
            lastBySource[source] = value
            total += value
            return nil
        }
        lastBySource[source] = value
        guard value >= previous else { return nil }
        total += value - previous
        return value - previous
    }

    /// Forgets sources whose key is not in `live`, so a replaced connection's entries stop
    /// being tracked (their contribution stays in the total).
    mutating func retain(onlySourcesIn live: Set<String>) {
        if lastBySource.count > live.count { lastBySource = lastBySource.filter { live.contains($0.key) } }
    }

    /// The total as an unsigned count.
    var count: UInt64 { UInt64(total.rounded()) }
}

/// Rates from two samples of the same counters, checked once.
enum RateCalculator {
    /// bits per second from a byte increase over `milliseconds`; `nil` without a usable interval.
    static func bitsPerSecond(bytes: Double?, milliseconds: Double?) -> Double? {
        guard let bytes, let milliseconds, milliseconds > 0 else { return nil }
        return 8 * bytes * 1000 / milliseconds
    }

    /// events per second from an increase over `milliseconds`.
    static func perSecond(_ increase: Double?, milliseconds: Double?) -> Double? {
        guard let increase, let milliseconds, milliseconds > 0 else { return nil }
        return increase * 1000 / milliseconds
    }
}
