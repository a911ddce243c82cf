/// Why a frame did not reach a renderer or a stream.
public struct VideoFrameDropReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The reason's name.
    public let rawValue: String
    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The renderer was still busy with earlier frames and its queue was full: the oldest
    /// waiting frame was dropped.
    public static let rendererBusy = VideoFrameDropReason(rawValue: "rendererBusy")
    /// A `videoFrames` stream's reader was behind and its buffer was full: the oldest
    /// buffered frame was dropped (counted once per stream).
    public static let streamBusy = VideoFrameDropReason(rawValue: "streamBusy")
    /// The engine could not make a valid frame of what it decoded (truncated plane, zero
    /// stride, ...); ``VideoDeliveryStats/lastInvalidFrameReason`` says what.
    public static let invalidFrame = VideoFrameDropReason(rawValue: "invalidFrame")

    /// The reason's name.
    public var description: String { rawValue }
}

/// What a subscriber's or publisher's video output did so far.
public struct VideoDeliveryStats: Hashable, Sendable {
    /// Valid frames received from the engine.
    public var framesReceived = 0
    /// Frames a ``VideoRenderer`` returned from.
    public var framesRendered = 0
    /// Frames dropped, by reason.
    public var dropped: [VideoFrameDropReason: Int] = [:]
    /// Why the engine rejected the last invalid frame.
    public var lastInvalidFrameReason: String?
    /// The size of the last frame received.
    public var lastSize: CallVideoDimensions?
    /// How many times the size changed from one frame to the next (a layer switch, a new
    /// connection); the first frame is not a change.
    public var sizeChanges = 0

    /// Creates empty stats.
    public init() {}

    /// The frames dropped for `reason` (0 when none).
    public func dropped(_ reason: VideoFrameDropReason) -> Int { dropped[reason] ?? 0 }
}
