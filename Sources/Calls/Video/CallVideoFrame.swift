import VideoFrames

/// One decoded frame handed to a ``VideoRenderer`` or read from a `videoFrames` stream.
public struct CallVideoFrame: Sendable {
    /// The picture (format, size, planes and strides, timestamp, rotation); read it with
    /// ``RetainedVideoFrame/withFrame(_:)``.
    public var frame: RetainedVideoFrame
    /// When the frame was captured, in microseconds on the engine's clock, when known.
    public var captureTimeMicroseconds: Int64?
    /// Its 1-based position among the frames the output received from the engine: a gap
    /// between two frames a renderer sees is the number of frames dropped between them.
    public var number: Int

    /// Creates a frame.
    public init(frame: RetainedVideoFrame, captureTimeMicroseconds: Int64? = nil, number: Int) {
        self.frame = frame
        self.captureTimeMicroseconds = captureTimeMicroseconds
        self.number = number
    }

    /// Width in pixels.
    public var width: Int { frame.width }
    /// Height in pixels.
    public var height: Int { frame.height }
}
