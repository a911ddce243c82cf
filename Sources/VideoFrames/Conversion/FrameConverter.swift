/// Converts frames between formats into memory the caller provides, without allocating.
///
/// Supported: I420 → BGRA, NV12 → BGRA, BGRA → I420 (with ``colorSpace``) and I420 → NV12.
/// The vectorised implementations (AVX2 where the CPU has it, see ``VectorKernel``; the Swift
/// SIMD kernels elsewhere) and the scalar reference produce identical bytes; results are
/// within ±1 of the exact BT.601 / BT.709 conversion (see ``YUVColorSpace/rgb(y:u:v:)``).
///
/// ```swift
/// let converter = FrameConverter(colorSpace: .bt709Limited, parallelism: .automatic)
/// try converter.convert(frame, into: pixelBufferFrame)
/// ```
public struct FrameConverter: Sendable, Hashable {
    /// Which code computes the pixels.
    public enum Implementation: String, Sendable, Hashable, CaseIterable {
        /// The fastest vector kernels this CPU runs (the default): AVX2 on x86-64 CPUs that have
        /// it, the Swift SIMD kernels elsewhere; see ``VectorKernel/selected``.
        case vectorized
        /// The Swift SIMD kernels, 16 pixels at a time, whatever the CPU.
        case swiftSIMD
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
    ///
    /// On x86-64 with AVX2, a BGRA destination of 2 MiB or more that no conversion wrote
    /// recently (within about half the last-level cache of conversion traffic) is written
    /// around the cache, so it is not read first; converting into the same few buffers, as a
    /// pixel-buffer pool does, keeps them cached. The bytes are the same either way.
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
        let kernel = Kernel(implementation)
        switch (source.format, destination.format) {
        case (.i420, .bgra), (.nv12, .bgra):
            let k = YUVToRGBCoefficients(colorSpace)
            switch kernel {
            case .avx2:
                #if arch(x86_64)
                let ck = AVX2Kernels.cCoefficients(k)
                let around = AVX2Kernels.writesAroundCache(destination, recentlyWritten: SharedDestinationReuse.shared.record(source, destination))
                RowBands.run(chromaRows: chromaRows, threads: threads) { AVX2Kernels.yuvToBGRA(source, destination, ck, chromaRows: $0, writeAroundCache: around) }
                #else
                preconditionFailure("AVX2 is selected only on x86-64")
                #endif
            case .swiftSIMD:
                let constants = YUVToBGRAKernel.Constants(k)
                RowBands.run(chromaRows: chromaRows, threads: threads) { YUVToBGRAKernel.convert(source, destination, constants, chromaRows: $0) }
            case .reference:
                RowBands.run(chromaRows: chromaRows, threads: threads) { ReferenceKernels.yuvToBGRA(source, destination, k, chromaRows: $0) }
            }
        case (.bgra, .i420):
            let k = RGBToYUVCoefficients(colorSpace)
            switch kernel {
            case .avx2:
                #if arch(x86_64)
                let ck = AVX2Kernels.cCoefficients(k)
                _ = SharedDestinationReuse.shared.record(source, destination)  // its traffic counts for the others
                RowBands.run(chromaRows: chromaRows, threads: threads) { AVX2Kernels.bgraToI420(source, destination, k, ck, chromaRows: $0) }
                #else
                preconditionFailure("AVX2 is selected only on x86-64")
                #endif
            case .swiftSIMD:
                RowBands.run(chromaRows: chromaRows, threads: threads) { BGRAToI420Kernel.convert(source, destination, k, chromaRows: $0) }
            case .reference:
                RowBands.run(chromaRows: chromaRows, threads: threads) { ReferenceKernels.bgraToI420(source, destination, k, chromaRows: $0) }
            }
        default:
            // A copy and an interleave: memory-bound, so the Swift SIMD kernel on every CPU.
            RowBands.run(chromaRows: chromaRows, threads: threads) { rows in
                if kernel != .reference {
                    I420ToNV12Kernel.convert(source, destination, chromaRows: rows)
                } else {
                    ReferenceKernels.i420ToNV12(source, destination, chromaRows: rows)
                }
            }
        }
    }

    /// The code that runs one conversion.
    enum Kernel {
        case avx2, swiftSIMD, reference

        init(_ implementation: Implementation) {
            switch implementation {
            case .vectorized: self = VectorKernel.selected == .avx2 ? .avx2 : .swiftSIMD
            case .swiftSIMD: self = .swiftSIMD
            case .reference: self = .reference
            }
        }
    }
}
