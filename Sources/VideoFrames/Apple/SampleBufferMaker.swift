#if canImport(CoreVideo) && canImport(CoreMedia)
import CoreMedia
import CoreVideo

/// Turns decoded frames into timed sample buffers for an `AVSampleBufferDisplayLayer`: a
/// `CVPixelBuffer` from a `CVPixelBufferPool` of the ``DisplayBufferPlan``'s format (BGRA, or
/// NV12 tagged with the colour space), the frame written into it, a format description (reused
/// while the buffers do not change) and timing from a ``PresentationClock``.
///
/// All pixel work and every decision are the portable ``DisplayBufferPlan`` and
/// ``FrameConverter`` (tested on Linux); this type only wraps CoreVideo and CoreMedia around
/// them. Use it on the thread that delivers the frames, inside the callback: a ``VideoFrame``
/// is only valid there. Not compiled on Linux.
///
/// ```swift
/// var maker = SampleBufferMaker(converter: FrameConverter(colorSpace: .bt601Limited))
/// let sample = try maker.sampleBuffer(for: frame)        // then enqueue it on the main thread
/// ```
public struct SampleBufferMaker {
    /// The converter used for every frame; its colour space also tags NV12 buffers.
    public var converter: FrameConverter
    /// BGRA for every frame, or NV12 for YUV frames.
    public var preference: DisplayBufferPlan.Preference
    /// The clock turning frame timestamps into presentation times.
    public var clock: PresentationClock
    /// Whether sample buffers are marked to be shown as soon as they arrive (right for live
    /// calls, where the layer has no timebase to follow).
    public var displayImmediately: Bool
    private var pool: CVPixelBufferPool?
    private var poolKey: PoolKey?
    private var formatDescription: CMVideoFormatDescription?

    private struct PoolKey: Equatable {
        var pixelFormat: OSType
        var width: Int
        var height: Int
    }

    /// A maker converting with `converter`, into buffers chosen by `preference`, timing with
    /// `clock`.
    public init(converter: FrameConverter = FrameConverter(), preference: DisplayBufferPlan.Preference = .bgra,
                clock: PresentationClock = PresentationClock(), displayImmediately: Bool = true) {
        self.converter = converter
        self.preference = preference
        self.clock = clock
        self.displayImmediately = displayImmediately
    }

    /// A pixel buffer from the pool holding `frame`, converted or copied as its plan says.
    public mutating func pixelBuffer(for frame: VideoFrame) throws -> CVPixelBuffer {
        let plan = DisplayBufferPlan(source: frame.format, preference: preference)
        let key = PoolKey(pixelFormat: Self.pixelFormat(plan.format, range: converter.colorSpace.range), width: frame.width, height: frame.height)
        if pool == nil || poolKey != key {
            pool = try Self.makePool(pixelFormat: key.pixelFormat, width: key.width, height: key.height)
            poolKey = key
            formatDescription = nil
        }
        var made: CVPixelBuffer?
        try check(CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pool!, &made), "CVPixelBufferPoolCreatePixelBuffer")
        guard let buffer = made else { throw VideoFrameError(.platformFailure, "CVPixelBufferPoolCreatePixelBuffer returned no buffer") }
        try check(CVPixelBufferLockBaseAddress(buffer, []), "CVPixelBufferLockBaseAddress")
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        try plan.write(frame, into: try Self.writableFrame(buffer, format: plan.format, width: frame.width, height: frame.height), converter: converter)
        if plan.format == .nv12 {
            let matrix = converter.colorSpace.matrix == .bt709 ? kCVImageBufferYCbCrMatrix_ITU_R_709_2 : kCVImageBufferYCbCrMatrix_ITU_R_601_4
            CVBufferSetAttachment(buffer, kCVImageBufferYCbCrMatrixKey, matrix, .shouldPropagate)
        }
        return buffer
    }

    /// A ready sample buffer of `frame`: written into a pooled buffer, timed by the clock, with
    /// its format description.
    public mutating func sampleBuffer(for frame: VideoFrame) throws -> CMSampleBuffer {
        let pixels = try pixelBuffer(for: frame)
        return try sampleBuffer(for: pixels, at: clock.presentationTime(for: frame.timestamp))
    }

    /// A ready sample buffer of a pixel buffer someone else filled (passed through, no copy),
    /// timed by the clock from `timestamp` (90 kHz, see ``PresentationClock/timestamp(nanoseconds:clockRate:)``).
    public mutating func sampleBuffer(passingThrough pixelBuffer: CVPixelBuffer, timestamp: UInt32) throws -> CMSampleBuffer {
        try sampleBuffer(for: pixelBuffer, at: clock.presentationTime(for: timestamp))
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

    /// The CoreVideo pixel format of a plan's buffer format: BGRA, or NV12 in the converter's
    /// range (`420v` limited, `420f` full).
    public static func pixelFormat(_ format: PixelFormat, range: ColorRange) -> OSType {
        switch format {
        case .nv12, .i420:
            range == .full ? kCVPixelFormatType_420YpCbCr8BiPlanarFullRange : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        case .bgra:
            kCVPixelFormatType_32BGRA
        }
    }

    /// A pool of IOSurface-backed buffers of one format and size (what the display layer and
    /// Picture in Picture need).
    public static func makePool(pixelFormat: OSType = kCVPixelFormatType_32BGRA, width: Int, height: Int, minimumBufferCount: Int = 3) throws -> CVPixelBufferPool {
        let pixelAttributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: pixelFormat,
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

    /// The locked buffer's planes as a frame to write into (validated like any frame).
    private static func writableFrame(_ buffer: CVPixelBuffer, format: PixelFormat, width: Int, height: Int) throws -> MutableVideoFrame {
        if format == .bgra {
            guard let base = CVPixelBufferGetBaseAddress(buffer) else { throw VideoFrameError(.platformFailure, "the pixel buffer has no base address") }
            let stride = CVPixelBufferGetBytesPerRow(buffer)
            return try .bgra(MutableVideoPlane(base: base, stride: stride, count: stride * CVPixelBufferGetHeight(buffer)), width: width, height: height)
        }
        var planes: [MutableVideoPlane] = []
        for index in 0..<2 {
            guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, index) else { throw VideoFrameError(.platformFailure, "the pixel buffer has no plane \(index)") }
            let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, index)
            planes.append(MutableVideoPlane(base: base, stride: stride, count: stride * CVPixelBufferGetHeightOfPlane(buffer, index)))
        }
        return try .nv12(y: planes[0], uv: planes[1], width: width, height: height)
    }
}

private func check(_ status: Int32, _ call: String) throws {
    guard status == 0 else { throw VideoFrameError(.platformFailure, "\(call) failed with status \(status)") }
}
#endif
