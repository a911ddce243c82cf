/// The truth of one received stream, measured from the frames themselves
/// (``ReceivedVideoTimeline/summary(over:capture:)``).
public struct ReceivedVideoSummary: Hashable, Sendable {
    /// PSNR of the frames of one size.
    public struct Quality: Hashable, Sendable {
        /// `WxH`.
        public var size: String
        /// Frames measured.
        public var frames: Int
        /// Mean luma PSNR, dB.
        public var meanY: Double
        /// Lowest luma PSNR, dB.
        public var minimumY: Double
        /// Mean PSNR of U (blue-difference chroma), dB.
        public var meanU: Double
        /// Mean PSNR of V (red-difference chroma), dB.
        public var meanV: Double
    }

    /// Minimum, median, 95th percentile, maximum and mean of a set of values (seconds).
    public struct Spread: Hashable, Sendable {
        /// How many values.
        public var count: Int
        /// Smallest.
        public var minimum: Double
        /// Middle (nearest rank).
        public var median: Double
        /// 95th percentile (nearest rank).
        public var percentile95: Double
        /// Largest.
        public var maximum: Double
        /// Mean.
        public var mean: Double

        /// The spread of `values`; `nil` when there are none.
        public init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            func rank(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))] }
            count = sorted.count
            minimum = sorted[0]
            median = rank(0.5)
            percentile95 = rank(0.95)
            maximum = sorted[sorted.count - 1]
            mean = sorted.reduce(0, +) / Double(sorted.count)
        }
    }

    /// New frames (each index once, in order).
    public var newFrames = 0
    /// Distinct indices seen within the span of the first to the last new frame.
    public var delivered = 0
    /// Indices the camera produced in that span (it produces every index in turn).
    public var sent = 0
    /// Seconds from the first to the last new frame.
    public var seconds = 0.0
    /// Frames with an index already seen.
    public var repeated = 0
    /// Frames older than the newest seen.
    public var late = 0
    /// Frames without a readable marker, by reason.
    public var unreadable: [UnreadableMarkerReason: Int] = [:]
    /// The longest time between two new frames: a freeze as a person sees it.
    public var longestGap: VideoStall?
    /// Freezes by the W3C/libwebrtc definition (``FreezeDetector``).
    public var freezes: [VideoStall] = []
    /// Pauses (5 s or more without a new frame).
    public var pauses: [VideoStall] = []
    /// The mean interval between new frames outside freezes and pauses, seconds.
    public var meanFrameInterval: Double?
    /// New frames by size (`WxH`).
    public var sizes: [String: Int] = [:]
    /// PSNR by size, the most frequent size first.
    public var quality: [Quality] = []
    /// Frames whose PSNR was not measured.
    public var qualitySkipped = 0
    /// Arrival here minus the capture side's arrival of the same frame, seconds (when a
    /// capture timeline was given).
    public var latency: Spread?
    /// New frames no captured frame matched.
    public var latencyUnmatched = 0

    /// Creates an empty summary.
    public init() {}

    /// `delivered / sent`, 0...1 (0 when nothing was seen).
    public var deliveredFraction: Double { sent > 0 ? Double(delivered) / Double(sent) : 0 }

    /// Total seconds of freezes.
    public var freezeSeconds: Double { freezes.map(\.duration).reduce(0, +) }
    /// Total seconds of pauses.
    public var pauseSeconds: Double { pauses.map(\.duration).reduce(0, +) }
}
