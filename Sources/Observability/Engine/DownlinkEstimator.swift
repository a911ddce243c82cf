/// A receive-side downlink estimate for reports without `availableIncomingBitrate` (Chromium
/// does not report it): the highest received rate of the whole connection (candidate-pair
/// `bytesReceived`, so headers, audio and every stream included) over the last `window`
/// samples. When the link is saturated this is the goodput it sustains; when it is not, it is a
/// lower bound (the link could carry more than the sender chose to send).
///
/// An interval in which nothing was offered (no RTP arrived: the publisher stopped, or the
/// video is paused) is no reading of the link: its rate is left out, and the estimate stays what
/// the link carried when it last carried media.
///
/// Each candidate pair has its own byte counter: when the selected pair changes (network
/// handover, ICE restart) the new pair's counter is a new source, never a continuation of the
/// old one, so its first sample gives no rate.
import RTCStats

struct DownlinkEstimator: Sendable {
    private let window: Int
    private var lastBytes: Double?
    private var lastTime: Double?
    private var lastPair: String?
    private var recentRates: [Double] = []
    /// Estimates and rates out of their physical bounds, dropped.
    private(set) var dropped = DroppedValues()

    init(window: Int = 10) { self.window = window }

    /// Feeds the connection's `bytesReceived` at `time` (ms); returns the estimate in bps,
    /// `nil` before two readings of the counter (less than a gap apart) gave a rate.
    mutating func update(time: Double, bytesReceived: Double?, maximumGap: Double, offered: Bool = true) -> Double? {
        defer {
            lastBytes = bytesReceived
            lastTime = time
        }
        if offered, let bytesReceived, let lastBytes, let lastTime, bytesReceived >= lastBytes,
           time > lastTime, time - lastTime <= maximumGap,
           let rate = dropped.check(RateCalculator.bitsPerSecond(bytes: bytesReceived - lastBytes, milliseconds: time - lastTime), PhysicalBounds.estimate, .estimate) {
            recentRates.append(rate)
            if recentRates.count > window { recentRates.removeFirst(recentRates.count - window) }
        }
        return recentRates.max()
    }

    /// The downlink transport of a receive report: `availableIncomingBitrate` of the selected
    /// pair when the report has it, this estimate otherwise (unmeasured without either).
    mutating func transport(selectedPair pair: StatsEntry?, reportTime: Double?, maximumGap: Double, offered: Bool = true) -> TransportStats {
        if pair?.id != lastPair {
            // A new path: neither its counter nor the old path's rates say what it carries.
            lastBytes = nil
            recentRates.removeAll()
            lastPair = pair?.id
        }
        let observed = update(time: pair?.timestamp ?? reportTime ?? 0, bytesReceived: pair?.bytesReceived, maximumGap: maximumGap, offered: offered)
        return TransportStats(estimate: dropped.check(pair?.availableIncomingBitrate, PhysicalBounds.estimate, .estimate) ?? observed)
    }
}
