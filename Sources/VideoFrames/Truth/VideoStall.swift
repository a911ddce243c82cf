/// A time without new frames: from the last frame before it, for `duration` seconds.
public struct VideoStall: Hashable, Sendable {
    /// When the last frame before the stall arrived (the caller's clock, seconds).
    public var start: Double
    /// Seconds until the next new frame.
    public var duration: Double

    /// Creates a stall.
    public init(start: Double, duration: Double) {
        self.start = start
        self.duration = duration
    }

    /// When the next frame arrived.
    public var end: Double { start + duration }
}
