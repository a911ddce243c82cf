/// A presentation time on a monotonic timeline: what a sample buffer's timing info needs.
public struct PresentationTime: Sendable, Hashable, CustomStringConvertible {
    /// Ticks since the first frame (plus ``PresentationClock/origin``).
    public var value: Int64
    /// Ticks per second (the clock's rate, 90 000 for RTP video).
    public var timescale: Int32
    /// The expected duration of this frame, in ticks: the latest regular interval between
    /// frames, or the nominal one until there is one.
    public var duration: Int64
    /// How this time was arrived at.
    public var kind: Kind

    /// How a frame's timestamp was turned into its presentation time.
    public enum Kind: String, Sendable, Hashable {
        /// The first frame, at the origin.
        case first
        /// The timestamp advanced by a plausible interval; the time advanced by as much.
        case regular
        /// The timestamp jumped forward or back by more than the largest gap (a pause, a new
        /// source, a reset): the timeline continued one frame duration after the last frame
        /// and follows the new timestamps from there.
        case discontinuity
        /// The timestamp went back a little or repeated (reordering, a duplicate): shown one
        /// tick after the previous frame so the timeline never goes back.
        case late
    }

    /// The time in seconds.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// `value/timescale (kind, duration d)`.
    public var description: String { "\(value)/\(timescale) (\(kind.rawValue), duration \(duration))" }
}

/// Turns frame timestamps into monotonic presentation times.
///
/// Frame timestamps are RTP-style: 32-bit, 90 kHz, starting anywhere, wrapping after 13¼
/// hours, and hostile: they jump when a source pauses or is replaced, repeat, or arrive out of
/// order. Presentation times must only go forward. The clock unwraps the 32-bit timestamps
/// into 64 bits (a difference of up to 2³¹ ticks either way is taken as the short way round),
/// passes regular intervals through unchanged, turns a jump beyond ``maximumGap`` into one
/// ``nominalFrameDuration`` step, and holds late frames one tick after the previous one.
///
/// A value with no clock of its own: feed it timestamps, get times.
///
/// ```swift
/// var clock = PresentationClock()
/// let time = clock.presentationTime(for: frame.timestamp)  // CMTime(value:timescale:)
/// ```
public struct PresentationClock: Sendable, Hashable {
    /// Timestamp ticks per second.
    public let clockRate: Int32
    /// The largest step between consecutive timestamps taken as regular, in ticks.
    public let maximumGap: Int64
    /// The step used after a discontinuity and before the first regular interval, in ticks.
    public let nominalFrameDuration: Int64
    /// The presentation time of the first frame, in ticks.
    public let origin: Int64

    private var lastTimestamp: UInt32?
    private var lastUnwrapped: Int64 = 0
    /// Presentation ticks minus unwrapped timestamp ticks, for the current timeline.
    private var offset: Int64 = 0
    private var lastValue: Int64 = 0
    private var lastInterval: Int64

    /// A clock for `clockRate` Hz timestamps (90 kHz: RTP video), treating steps longer than
    /// `maximumGap` seconds or going back more than that as discontinuities, with
    /// `nominalFrameRate` frames per second assumed until intervals are seen.
    public init(clockRate: Int32 = 90_000, maximumGap: Double = 1.0, nominalFrameRate: Double = 30, origin: Int64 = 0) {
        self.clockRate = max(clockRate, 1)
        self.maximumGap = max(Int64((maximumGap * Double(self.clockRate)).rounded()), 1)
        nominalFrameDuration = max(Int64((Double(self.clockRate) / max(nominalFrameRate, 0.001)).rounded()), 1)
        self.origin = origin
        lastInterval = nominalFrameDuration
    }

    /// The presentation time of the frame with `timestamp`, the next frame received.
    public mutating func presentationTime(for timestamp: UInt32) -> PresentationTime {
        guard let previous = lastTimestamp else {
            lastTimestamp = timestamp
            lastUnwrapped = Int64(timestamp)
            offset = origin - Int64(timestamp)
            lastValue = origin
            return PresentationTime(value: origin, timescale: clockRate, duration: lastInterval, kind: .first)
        }
        // The signed 32-bit difference: the short way round the wrap.
        let step = Int64(Int32(bitPattern: timestamp &- previous))
        let unwrapped = lastUnwrapped + step
        var kind = PresentationTime.Kind.regular
        if step > maximumGap || step < -maximumGap {
            kind = .discontinuity
            offset = lastValue + lastInterval - unwrapped
        }
        var value = unwrapped + offset
        if value <= lastValue {
            kind = kind == .discontinuity ? kind : .late
            value = lastValue + 1
        }
        if kind == .regular { lastInterval = step }
        // Later frames are measured from the newest timestamp; a late one does not rewind it.
        if step > 0 || kind == .discontinuity {
            lastTimestamp = timestamp
            lastUnwrapped = unwrapped
        }
        lastValue = value
        return PresentationTime(value: value, timescale: clockRate, duration: lastInterval, kind: kind)
    }
}
