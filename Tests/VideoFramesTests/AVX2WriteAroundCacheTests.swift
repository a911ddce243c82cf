#if arch(x86_64)
import Testing
@testable import VideoFrames

/// The AVX2 YUV → BGRA kernels with non-temporal stores (what ``FrameConverter`` runs for
/// destinations of ``AVX2Kernels/writeAroundCacheBytes`` or more that were not written
/// recently) equal the scalar reference
/// bit for bit, padding untouched: every row start alignment (strides that are not multiples
/// of 64 move each row's first whole line), rows not starting on 8 bytes (the ordinary-store
/// fallback), and widths whose pixels before and after the whole lines take every length.
@Suite("AVX2 kernels written around the cache equal the scalar reference",
       .enabled(if: FrameConverter.VectorKernel.selected == .avx2,
                "the AVX2 kernels are not selected here (no AVX2, not x86-64, or CALLSCOPE_FRAMES_KERNEL=swift): not run"))
struct AVX2WriteAroundCacheTests {
    /// `source` through the AVX2 kernel, written around the cache unless `around` is false,
    /// into a destination padded like `converted(to:with:padding:paddingFill:)` makes it.
    static func aroundCache(_ source: TestFrame, padding: Int, around: Bool = true) throws -> TestFrame {
        var destination = TestFrame(.bgra, width: source.width, height: source.height, padding: padding, fill: 0xAB)
        let k = AVX2Kernels.cCoefficients(YUVToRGBCoefficients(.bt601Limited))
        try source.withFrame { frame in
            try destination.withMutableFrame { out in
                AVX2Kernels.yuvToBGRA(frame, out, k, chromaRows: 0..<PixelFormat.chromaSize(frame.height), writeAroundCache: around)
            }
        }
        return destination
    }

    @Test(arguments: [PixelFormat.i420, .nv12])
    func rowsOfEveryAlignment(format: PixelFormat) throws {
        var rng = SplitMix64(seed: format == .i420 ? 31 : 32)
        for width in [16, 31, 32, 33, 34, 40, 46, 47, 48, 62, 63, 64, 65, 66, 78, 95, 97, 126, 161, 1366] {
            for padding in [0, 1, 4, 8, 12, 20, 36, 60] {
                let source = TestFrame.random(format, width: width, height: 17, padding: width % 5, using: &rng)
                let reference = try source.converted(to: .bgra, with: FrameConverter(implementation: .reference), padding: padding, paddingFill: 0xAB)
                let fast = try Self.aroundCache(source, padding: padding)
                #expect(VectorEquivalenceTests.firstDifference(fast, reference) == nil, "\(format) width \(width) padding \(padding)")
            }
        }
    }

    /// A 720p frame (a destination over ``AVX2Kernels/writeAroundCacheBytes``) equals the
    /// reference through the kernel with either kind of store, and through ``FrameConverter``
    /// (which picks one per call, see ``DestinationReuse``) on one thread and on several.
    @Test(arguments: [PixelFormat.i420, .nv12])
    func largeFramesWithEitherStoreEqualTheReference(format: PixelFormat) throws {
        var rng = SplitMix64(seed: 33)
        let source = TestFrame.random(format, width: 1280, height: 720, padding: 20, using: &rng)
        var probe = TestFrame(.bgra, width: 1280, height: 720, padding: 12)
        #expect(try probe.withMutableFrame { AVX2Kernels.writesAroundCache($0, recentlyWritten: false) })
        #expect(try !probe.withMutableFrame { AVX2Kernels.writesAroundCache($0, recentlyWritten: true) })
        let reference = try source.converted(to: .bgra, with: FrameConverter(implementation: .reference), padding: 12, paddingFill: 0xAB)
        for around in [true, false] {
            let destination = try Self.aroundCache(source, padding: 12, around: around)
            #expect(VectorEquivalenceTests.firstDifference(destination, reference) == nil, "\(format) around the cache: \(around)")
        }
        for parallelism in [Parallelism.none, .threads(3)] {
            let fast = try source.converted(to: .bgra, with: FrameConverter(implementation: .vectorized, parallelism: parallelism), padding: 12, paddingFill: 0xAB)
            #expect(VectorEquivalenceTests.firstDifference(fast, reference) == nil, "\(format) \(parallelism)")
        }
    }
}
#endif
