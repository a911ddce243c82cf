/// Converts frames between formats into memory the caller provides, without allocating.
///
/// Supported: I420 → BGRA, NV12 → BGRA, BGRA → I420 (with ``colorSpace``) and I420 → NV12.
/// The vectorised implementation and the scalar reference produce identical bytes; results are
/// within ±1 of the exact BT.601 / BT.709 conversion (see ``YUVColorSpace/rgb(y:u:v:)``).
///
/// ```swift
/// let converter = FrameConverter(colorSpace: .bt709Limited, parallelism: .automatic)
/// try converter.convert(frame, into: pixelBufferFrame)
/// ```
public struct FrameConverter: Sendable, Hashable {
    /// Which code computes the pixels.
    public enum Implementation: String, Sendable, Hashable, CaseIterable {
        /// SIMD kernels, 16 pixels at a time (the default).
        case vectorized
        /// One pixel at a time: the definition the vectorised kernels are tested against.
        case reference
    }

    /// Frames with fewer pixels than this are converted on one thread (the hand-off costs more
    /// than it saves).
    public static let parallelMinimumPixels = 320 * 240

    /// The matrix and range of the YUV side.
    public var colorSpace: YUVColorSpace
    /// Which code computes the pixels.
    public var implementation: Implementation
    /// How many threads may share a frame.
    public var parallelism: Parallelism

    /// A converter.
    public init(colorSpace: YUVColorSpace = .bt601Limited, implementation: Implementation = .vectorized, parallelism: Parallelism = .none) {
        self.colorSpace = colorSpace
        self.implementation = implementation
        self.parallelism = parallelism
    }

    /// Whether ``convert(_:into:)`` handles this pair of formats.
    public static func supports(from source: PixelFormat, to destination: PixelFormat) -> Bool {
        switch (source, destination) {
        case (.i420, .bgra), (.nv12, .bgra), (.bgra, .i420), (.i420, .nv12): true
        default: false
        }
    }

    /// Writes `source`, converted, into `destination`, which must have the same size and must
    /// not overlap it. Throws ``VideoFrameError`` for a size mismatch or an unsupported pair.
    ///
    /// Only pixels are written: carry `source.timestamp` and `source.rotation` along yourself.
    public func convert(_ source: VideoFrame, into destination: MutableVideoFrame) throws {
        guard source.width == destination.width, source.height == destination.height else {
            throw VideoFrameError(.sizeMismatch, "source is \(source.width)x\(source.height), destination \(destination.width)x\(destination.height)")
        }
        guard Self.supports(from: source.format, to: destination.format) else {
            throw VideoFrameError(.unsupportedConversion, "no conversion from \(source.format) to \(destination.format); supported: I420/NV12 → BGRA, BGRA → I420, I420 → NV12")
        }
        let chromaRows = PixelFormat.chromaSize(source.height)
        var threads = 1
        if case .threads(let count) = parallelism, source.width * source.height >= Self.parallelMinimumPixels { threads = count }
        let vectorized = implementation == .vectorized
        switch (source.format, destination.format) {
        case (.i420, .bgra), (.nv12, .bgra):
            let k = YUVToRGBCoefficients(colorSpace)
            let constants = YUVToBGRAKernel.Constants(k)
            RowBands.run(chromaRows: chromaRows, threads: threads) { rows in
                if vectorized {
                    YUVToBGRAKernel.convert(source, destination, constants, chromaRows: rows)
                } else {
                    ReferenceKernels.yuvToBGRA(source, destination, k, chromaRows: rows)
                }
            }
        case (.bgra, .i420):
            let k = RGBToYUVCoefficients(colorSpace)
            RowBands.run(chromaRows: chromaRows, threads: threads) { rows in
                if vectorized {
                    BGRAToI420Kernel.convert(source, destination, k, chromaRows: rows)
                } else {
                    ReferenceKernels.bgraToI420(source, destination, k, chromaRows: rows)
                }
            }
        default:
            RowBands.run(chromaRows: chromaRows, threads: threads) { rows in
                if vectorized {
                    I420ToNV12Kernel.convert(source, destination, chromaRows: rows)
                } else {
                    ReferenceKernels.i420ToNV12(source, destination, chromaRows: rows)
                }
            }
        }
    }
}
