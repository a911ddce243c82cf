/// Queueing behind a bottleneck, from a delay signal (round-trip time or jitter): the delay
/// sits at least `threshold` ms above the lowest seen on this transport.
struct QueueingDetector: Sendable {
    let threshold: Double
    private var lowest: Double?

    init(threshold: Double) {
        self.threshold = threshold
    }

    /// Feeds one reading (ms); returns whether packets are queueing. Non-finite or absent
    /// readings say nothing (`false`) and leave the lowest unchanged.
    mutating func update(_ delay: Double?) -> Bool {
        guard let delay, delay.isFinite else { return false }
        let floor = min(lowest ?? delay, delay)
        lowest = floor
        return delay - floor >= threshold
    }
}

/// Bandwidth headroom: estimate ÷ demand; `nil` when either is unknown, the demand is not
/// positive or the estimate negative (an estimate of 0 is no bandwidth at all: headroom 0).
func headroom(estimate: Double?, demand: Double?) -> Double? {
    guard let estimate, let demand, estimate >= 0, demand > 0, estimate.isFinite, demand.isFinite else { return nil }
    return estimate / demand
}
