/// The physical bounds every value the engine emits must respect. A value outside them comes
/// from a damaged or hostile report (a frame rate of −30, a counter jump worth 8 Gb/s, a
/// negative estimate): it is dropped, counted by kind, and the field reads as "no measurement"
/// (0 for a rate or an estimate, as for a stream's first sample), never as the absurd value.
///
/// | value | accepted |
/// |---|---|
/// | frame rate | 0…1 000 frames/s |
/// | bitrate of one layer or stream | 0…1 Gb/s |
/// | bandwidth estimate of a connection | 0…10 Gb/s |
/// | round-trip time, jitter | 0…60 000 ms |
/// | a sample's time | finite, 0…2^53 unix ms (a sample outside is dropped whole) |
public enum PhysicalBounds {
    /// Frames per second.
    public static let frameRate = 0.0...1_000
    /// Bits per second of one layer or stream.
    public static let bitrate = 0.0...1_000_000_000
    /// Bits per second of a connection's estimate.
    public static let estimate = 0.0...10_000_000_000
    /// Milliseconds.
    public static let delay = 0.0...60_000
    /// Unix milliseconds of a sample.
    public static let time = 0.0...9_007_199_254_740_992
}

/// What kind of emitted value was out of its physical bounds.
public enum DroppedValueKind: String, Sendable, Hashable, CaseIterable {
    case frameRate
    case bitrate
    case estimate
    case delay
    /// A whole sample, whose time was not a usable unix ms.
    case sampleTime
}

/// Values dropped for being out of bounds, by kind.
public struct DroppedValues: Sendable, Hashable {
    /// The counts, by kind.
    public private(set) var counts: [DroppedValueKind: Int] = [:]

    /// Creates empty counts.
    public init() {}

    /// The total.
    public var total: Int { counts.values.reduce(0, +) }

    /// `value` when it is finite and within `bounds`; otherwise `nil`, counted under `kind`.
    /// An absent value is not a drop.
    mutating func check(_ value: Double?, _ bounds: ClosedRange<Double>, _ kind: DroppedValueKind) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, bounds.contains(value) else {
            counts[kind, default: 0] += 1
            return nil
        }
        return value
    }

    /// Adds another set of counts.
    mutating func add(_ other: DroppedValues) {
        for (kind, count) in other.counts { counts[kind, default: 0] += count }
    }
}
