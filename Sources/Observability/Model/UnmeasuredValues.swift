/// The values of one stats sample that could not be measured, and read `0`: an app tells an
/// unknown value from a real zero with `stats.unmeasured.contains(.bitrate)`.
///
/// A rate needs two readings of a counter less than a gap apart (docs/spec/observability.md §2):
/// the first sample of a stream, the first after a gap (more than 3 intervals) and one whose
/// counter went back have none. An estimate is unknown when the report has none and nothing
/// was received yet to measure one from. The fields keep the reference SDK's plain numbers, so
/// code written against it reads them unchanged; this set says which of them are placeholders.
/// (An optional per field was the other way: it would have changed every field's type, and
/// every reader, for the sake of the first second of a stream.)
public struct UnmeasuredValues: OptionSet, Sendable, Hashable {
    /// The set's bits, one per value.
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `bitrate` and `totalBitrate`.
    public static let bitrate = UnmeasuredValues(rawValue: 1 << 0)
    /// The frame rate (`decodedFrameRate`, `encodedFrameRate`, `videoFrameRate`).
    public static let frameRate = UnmeasuredValues(rawValue: 1 << 1)
    /// `connectionEstimatedBandwidth`.
    public static let estimatedBandwidth = UnmeasuredValues(rawValue: 1 << 2)
}

extension UnmeasuredValues {
    /// `.bitrate` and `.frameRate` for those of a sample's rates that are `nil`.
    init(bitrate: Double?, frameRate: Double?) {
        self = []
        if bitrate == nil { insert(.bitrate) }
        if frameRate == nil { insert(.frameRate) }
    }
}
