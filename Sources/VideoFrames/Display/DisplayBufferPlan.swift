/// How a frame becomes the pixel buffer a sample-buffer display layer shows: the buffer's
/// format, and whether the frame is converted or copied into it.
///
/// `AVSampleBufferDisplayLayer` shows BGRA and bi-planar 4:2:0 (NV12: `420v` limited range,
/// `420f` full range) pixel buffers. BGRA is what every consumer takes (snapshots, Core Image;
/// the seed's path) and is the default. NV12 costs less to fill from I420 (a copy and an
/// interleave, no colour arithmetic) and leaves the colour conversion to the display, which
/// then reads the matrix and range from the buffer's attachments. BGRA has no NV12 conversion,
/// so a BGRA frame is copied as it is whatever the preference.
///
/// ```swift
/// let plan = DisplayBufferPlan(source: frame.format, preference: .nv12WhereAccepted)
/// // make a pixel buffer of plan.format and frame's size, lock it, then:
/// try plan.write(frame, into: lockedBuffer, converter: converter)
/// ```
public struct DisplayBufferPlan: Sendable, Hashable {
    /// The buffer format the app prefers.
    public enum Preference: String, Sendable, Hashable, CaseIterable {
        /// BGRA buffers for every frame.
        case bgra
        /// NV12 buffers for YUV frames (the display converts them), BGRA for BGRA frames.
        case nv12WhereAccepted
    }

    /// How the frame's pixels reach the buffer.
    public enum Step: String, Sendable, Hashable {
        /// Through ``FrameConverter`` (I420/NV12 → BGRA, I420 → NV12).
        case convert
        /// Row by row, unchanged (the frame already has the buffer's format).
        case copy
    }

    /// The format of the pixel buffer to make.
    public let format: PixelFormat
    /// How the frame is written into it.
    public let step: Step

    /// The plan for frames of `source` format.
    public init(source: PixelFormat, preference: Preference = .bgra) {
        switch (source, preference) {
        case (.bgra, _): (format, step) = (.bgra, .copy)
        case (.i420, .bgra), (.nv12, .bgra): (format, step) = (.bgra, .convert)
        case (.i420, .nv12WhereAccepted): (format, step) = (.nv12, .convert)
        case (.nv12, .nv12WhereAccepted): (format, step) = (.nv12, .copy)
        }
    }

    /// Writes `frame` into `destination` (a buffer of ``format`` and the frame's size, e.g. a
    /// locked `CVPixelBuffer`'s planes) by converting with `converter` or copying.
    ///
    /// Throws ``VideoFrameError`` when `frame` is not of the format the plan was made for or the
    /// destination does not match it: a size, a format (`unsupportedConversion`).
    public func write(_ frame: VideoFrame, into destination: MutableVideoFrame, converter: FrameConverter) throws {
        guard destination.format == format else {
            throw VideoFrameError(.unsupportedConversion, "the plan writes \(format) buffers; the destination is \(destination.format)")
        }
        switch step {
        case .convert:
            try converter.convert(frame, into: destination)
        case .copy:
            try FrameCopy.copy(frame, into: destination)
        }
    }
}
