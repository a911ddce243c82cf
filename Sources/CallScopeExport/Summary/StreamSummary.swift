import Observability

/// One row of `callscope analyze`: a video stream a peer sent or received in one call, or the
/// total over many.
public struct StreamSummary: Sendable, Hashable {
    /// Which way the video flowed.
    public enum Direction: String, Sendable, Hashable {
        /// A publisher's video (all layers of one connection).
        case sending
        /// A subscriber's received video stream.
        case receiving
        /// The total row.
        case total
    }

    /// The call (usually the file name); `total` for the total row.
    public var call: String
    /// The endpoint label.
    public var peer: String
    /// The subscribed stream id, or the publisher's connection id (empty when routed).
    public var stream: String
    /// Sending, receiving or the total.
    public var direction: Direction
    /// From the first to the last video callback of the stream, s (summed in the total).
    public var duration: Double
    /// Mean of the per-second payload bitrates (publisher: all layers), bps. The first
    /// callback of a stream has no rate yet and is left out.
    public var meanBitrate: Double
    /// 5th percentile (nearest rank) of the same per-second bitrates, bps.
    public var p5Bitrate: Double
    /// Packets lost, cumulative (publisher: as its receivers reported).
    public var packetsLost: UInt64
    /// Packets sent (publisher) or received + lost (subscriber).
    public var packetsExpected: UInt64
    /// Freezes (subscriber only).
    public var freezeCount: Int
    /// Total freeze time, s.
    public var freezeDuration: Double
    /// Seconds the stream's link (publisher uplink, subscriber downlink) spent in each condition.
    public var conditionSeconds: [NetworkCondition: Double]
    /// Seconds a subscribed stream spent with each degradation source.
    public var degradationSeconds: [NetworkDegradationSource: Double]
    /// The per-second bitrates behind the mean and the percentile (for totals over many rows).
    public var bitrateSamples: [Double]

    /// `packetsLost / packetsExpected`, 0 when nothing was expected.
    public var lossFraction: Double {
        packetsExpected == 0 ? 0 : Double(packetsLost) / Double(packetsExpected)
    }

    /// The degradation source (other than `none`) with the most seconds; `none` when the stream
    /// was never degraded (or is not a subscribed stream).
    public var dominantDegradationSource: NetworkDegradationSource {
        let ranked = degradationSeconds.filter { $0.key != .none && $0.value > 0 }
            .sorted { ($0.value, $0.key.rawValue) > ($1.value, $1.key.rawValue) }
        return ranked.first?.key ?? .none
    }

    /// Creates an empty row.
    public init(call: String, peer: String, stream: String, direction: Direction) {
        self.call = call
        self.peer = peer
        self.stream = stream
        self.direction = direction
        duration = 0
        meanBitrate = 0
        p5Bitrate = 0
        packetsLost = 0
        packetsExpected = 0
        freezeCount = 0
        freezeDuration = 0
        conditionSeconds = [:]
        degradationSeconds = [:]
        bitrateSamples = []
    }

    /// The 5th percentile by nearest rank: the value at rank ⌈0.05·n⌉ of the sorted samples.
    public static func percentile5(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let rank = Int((0.05 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, rank - 1)]
    }

    /// The total over `rows`: durations, packets, freezes and seconds summed; mean and
    /// percentile over every row's per-second bitrates pooled.
    public static func total(of rows: [StreamSummary]) -> StreamSummary {
        var total = StreamSummary(call: "total", peer: "", stream: "\(Set(rows.map(\.call)).count) calls", direction: .total)
        for row in rows {
            total.duration += row.duration
            total.packetsLost += row.packetsLost
            total.packetsExpected += row.packetsExpected
            total.freezeCount += row.freezeCount
            total.freezeDuration += row.freezeDuration
            total.bitrateSamples += row.bitrateSamples
            for (key, value) in row.conditionSeconds { total.conditionSeconds[key, default: 0] += value }
            for (key, value) in row.degradationSeconds { total.degradationSeconds[key, default: 0] += value }
        }
        total.meanBitrate = total.bitrateSamples.isEmpty ? 0 : total.bitrateSamples.reduce(0, +) / Double(total.bitrateSamples.count)
        total.p5Bitrate = percentile5(total.bitrateSamples)
        return total
    }
}
