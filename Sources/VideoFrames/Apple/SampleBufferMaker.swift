#if canImport(AVKit) && canImport(CoreVideo) && canImport(CoreMedia)
import CoreMedia
import CoreVideo

/// Turns decoded frames into timed BGRA sample buffers for an `AVSampleBufferDisplayLayer`:
/// a `CVPixelBuffer` from a `CVPixelBufferPool`, the frame converted into it, a format
/// description (reused while the size holds) and timing from a ``PresentationClock``.
///
/// All pixel work is the portable ``FrameConverter``; this type only wraps CoreVideo and
/// CoreMedia around it. Use it from one serial queue (the video SDK's render callback).
///
/// ```swift
/// var maker = SampleBufferMaker(converter: FrameConverter(colorSpace: .bt601Limited))
/// func renderVideoFrame(_ frame: VideoFrame) {           // from the SDK's custom renderer
///     guard let sample = try? maker.sampleBuffer(for: frame) else { return }
///     DispatchQueue.main.async { callView.enqueue(sample) }
/// }
/// ```
public struct SampleBufferMaker {
    /// The converter used for every frame.
    public var converter: FrameConverter
    /// The clock turning frame timestamps into presentation times.
    public var clock: PresentationClock
    /// Whether sample buffers are marked to be shown as soon as they arrive (right for live
    /// calls, where the layer has no timebase to follow).
    public var displayImmediately: Bool
    private var pool: CVPixelBufferPool?
    private var poolSize: (width: Int, height: Int) = (0, 0)
    private var formatDescription: CMVideoFormatDescription?

    /// A maker converting with `converter` and timing with `clock`.
    public init(converter: FrameConverter = FrameConverter(), clock: PresentationClock = PresentationClock(), displayImmediately: Bool = true) {
        self.converter = converter
        self.clock = clock
        self.displayImmediately = displayImmediately
    }

    /// A BGRA pixel buffer from the pool holding `frame` converted.
    public mutating func pixelBuffer(for frame: VideoFrame) throws -> CVPixelBuffer {
        if pool == nil || poolSize != (frame.width, frame.height) {
            pool = try Self.makePool(width: frame.width, height: frame.height)
            poolSize = (frame.width, frame.height)
            formatDescription = nil
        }
        var buffer: CVPixelBuffer?
        try check(CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pool!, &buffer), "CVPixelBufferPoolCreatePixelBuffer")
        guard let buffer else { throw VideoFrameError(.platformFailure, "CVPixelBufferPoolCreatePixelBuffer returned no buffer") }
        try check(CVPixelBufferLockBaseAddress(buffer, []), "CVPixelBufferLockBaseAddress")
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { throw VideoFrameError(.platformFailure, "the pixel buffer has no base address") }
        let bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
        let target = try MutableVideoFrame.bgra(MutableVideoPlane(base: base, stride: bytesPerRow, count: bytesPerRow * CVPixelBufferGetHeight(buffer)),
                                                width: CVPixelBufferGetWidth(buffer), height: CVPixelBufferGetHeight(buffer))
        try converter.convert(frame, into: target)
        return buffer
    }

    /// A ready sample buffer of `frame`: converted, timed by the clock, with its format
    /// description.
    public mutating func sampleBuffer(for frame: VideoFrame) throws -> CMSampleBuffer {
        let pixels = try pixelBuffer(for: frame)
        return try sampleBuffer(for: pixels, at: clock.presentationTime(for: frame.timestamp))
    }

    /// A ready sample buffer of `pixelBuffer` shown at `time`.
    public mutating func sampleBuffer(for pixelBuffer: CVPixelBuffer, at time: PresentationTime) throws -> CMSampleBuffer {
        if formatDescription.map({ !CMVideoFormatDescriptionMatchesImageBuffer($0, imageBuffer: pixelBuffer) }) ?? true {
            var description: CMVideoFormatDescription?
            try check(CMVideoFormatDescriptionCreateForImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, formatDescriptionOut: &description),
                      "CMVideoFormatDescriptionCreateForImageBuffer")
            formatDescription = description
        }
        guard let formatDescription else { throw VideoFrameError(.platformFailure, "no format description for the pixel buffer") }
        var timing = CMSampleTimingInfo(duration: CMTime(value: time.duration, timescale: time.timescale),
                                        presentationTimeStamp: CMTime(value: time.value, timescale: time.timescale),
                                        decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        try check(CMSampleBufferCreateReadyWithImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, formatDescription: formatDescription,
                                                           sampleTiming: &timing, sampleBufferOut: &sample), "CMSampleBufferCreateReadyWithImageBuffer")
        guard let sample else { throw VideoFrameError(.platformFailure, "CMSampleBufferCreateReadyWithImageBuffer returned no buffer") }
        if displayImmediately, let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: true), CFArrayGetCount(attachments) > 0 {
            let dictionary = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
            CFDictionarySetValue(dictionary, Unmanaged.passUnretained(kCMSampleAttachmentKey_DisplayImmediately).toOpaque(),
                                 Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())
        }
        return sample
    }

    /// A pool of IOSurface-backed BGRA buffers of one size (what the display layer and
    /// Picture in Picture need).
    public static func makePool(width: Int, height: Int, minimumBufferCount: Int = 3) throws -> CVPixelBufferPool {
        let pixelAttributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            kCVPixelBufferWidthKey as String: width,
            kCVPixelBufferHeightKey as String: height,
            kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
        ]
        let poolAttributes: [String: Any] = [kCVPixelBufferPoolMinimumBufferCountKey as String: minimumBufferCount]
        var pool: CVPixelBufferPool?
        try check(CVPixelBufferPoolCreate(kCFAllocatorDefault, poolAttributes as CFDictionary, pixelAttributes as CFDictionary, &pool), "CVPixelBufferPoolCreate")
        guard let pool else { throw VideoFrameError(.platformFailure, "CVPixelBufferPoolCreate returned no pool") }
        return pool
    }
}

private func check(_ status: Int32, _ call: String) throws {
    guard status == 0 else { throw VideoFrameError(.platformFailure, "\(call) failed with status \(status)") }
}
#endif
