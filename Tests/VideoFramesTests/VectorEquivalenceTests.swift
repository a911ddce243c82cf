import Testing
@testable import VideoFrames

/// The vectorised kernels against the scalar reference, bit for bit, on seeded random frames of
/// many sizes (odd ones, ones smaller than a vector, ones with a tail), strides with padding,
/// every colour space, and both threading modes: the Swift SIMD kernels everywhere, the AVX2
/// kernels where the CPU has AVX2 (their suite says so when it cannot run).
@Suite("Vector kernels equal the scalar reference")
struct VectorEquivalenceTests {
    static let sizes: [(Int, Int)] = [(1, 1), (2, 2), (3, 5), (15, 1), (16, 2), (17, 3), (31, 7), (32, 2), (33, 33), (47, 4), (63, 5), (64, 9),
                                      (95, 17), (130, 66), (641, 363)]

    static func check(_ from: PixelFormat, _ to: PixelFormat, seed: UInt64, implementation: FrameConverter.Implementation = .swiftSIMD) throws {
        var rng = SplitMix64(seed: seed)
        for (width, height) in sizes {
            for space in YUVColorSpace.all {
                let padding = Int.random(in: 0...40, using: &rng)
                let source = TestFrame.random(from, width: width, height: height, padding: padding, using: &rng)
                let reference = try source.converted(to: to, with: FrameConverter(colorSpace: space, implementation: .reference), padding: 3, paddingFill: 0xAB)
                for parallelism in [Parallelism.none, .threads(3)] {
                    let fast = try source.converted(to: to, with: FrameConverter(colorSpace: space, implementation: implementation, parallelism: parallelism), padding: 3, paddingFill: 0xAB)
                    #expect(Self.firstDifference(fast, reference) == nil, "\(implementation) \(from)→\(to) \(width)x\(height) \(space) \(parallelism)")
                }
            }
        }
    }

    /// Where two frames first differ, for a readable failure.
    static func firstDifference(_ a: TestFrame, _ b: TestFrame) -> String? {
        for plane in a.planes.indices {
            let (x, y) = (a.planes[plane], b.planes[plane])
            if let i = x.indices.first(where: { $0 >= y.count || x[$0] != y[$0] }) {
                return "plane \(plane) byte \(i) (row \(i / a.strides[plane])): \(x[i]) vs \(i < y.count ? String(y[i]) : "nothing")"
            }
        }
        return a == b ? nil : "shapes differ"
    }

    @Test func i420ToBGRA() throws { try Self.check(.i420, .bgra, seed: 1) }
    @Test func nv12ToBGRA() throws { try Self.check(.nv12, .bgra, seed: 2) }
    @Test func bgraToI420() throws { try Self.check(.bgra, .i420, seed: 3) }
    @Test func i420ToNV12() throws { try Self.check(.i420, .nv12, seed: 4) }

    /// Stride padding of the destination is never written, by any implementation.
    @Test(arguments: FrameConverter.Implementation.allCases)
    func paddingIsUntouched(implementation: FrameConverter.Implementation) throws {
        var rng = SplitMix64(seed: 5)
        for (from, to) in [(PixelFormat.i420, PixelFormat.bgra), (.nv12, .bgra), (.bgra, .i420)] {
            let source = TestFrame.random(from, width: 37, height: 11, using: &rng)
            let out = try source.converted(to: to, with: FrameConverter(implementation: implementation), padding: 12, paddingFill: 0xAB)
            for plane in out.planes.indices {
                let rowBytes = to.rowBytes(plane: plane, width: 37)
                for row in 0..<to.rows(plane: plane, height: 11) {
                    #expect(out.planes[plane][(row * out.strides[plane] + rowBytes)..<((row + 1) * out.strides[plane])].allSatisfy { $0 == 0xAB },
                            "\(implementation) \(from)→\(to) plane \(plane) row \(row)")
                }
            }
        }
    }
}

/// The same property tests on the AVX2 kernels (``FrameConverter/Implementation/vectorized`` on
/// a CPU with AVX2).
@Suite("AVX2 kernels equal the scalar reference",
       .enabled(if: FrameConverter.VectorKernel.selected == .avx2,
                "the AVX2 kernels are not selected here (no AVX2, not x86-64, or CALLSCOPE_FRAMES_KERNEL=swift): not run"))
struct AVX2EquivalenceTests {
    @Test func i420ToBGRA() throws { try VectorEquivalenceTests.check(.i420, .bgra, seed: 21, implementation: .vectorized) }
    @Test func nv12ToBGRA() throws { try VectorEquivalenceTests.check(.nv12, .bgra, seed: 22, implementation: .vectorized) }
    @Test func bgraToI420() throws { try VectorEquivalenceTests.check(.bgra, .i420, seed: 23, implementation: .vectorized) }

    /// Extreme inputs the random frames rarely hit: every Y at 0 and 255 against chroma at 0,
    /// 128 and 255 (the clamps and the 16-bit intermediates), and saturated BGRA colours.
    @Test func extremes() throws {
        for space in YUVColorSpace.all {
            for format in [PixelFormat.i420, .nv12] {
                for (y, u, v) in [(0, 0, 0), (255, 255, 255), (255, 0, 255), (0, 255, 0), (235, 128, 128), (16, 240, 16)] as [(UInt8, UInt8, UInt8)] {
                    var source = TestFrame(format, width: 70, height: 4)
                    source.planes[0] = source.planes[0].map { _ in y }
                    source.planes[1] = format == .nv12 ? source.planes[1].indices.map { $0 % 2 == 0 ? u : v } : source.planes[1].map { _ in u }
                    if format == .i420 { source.planes[2] = source.planes[2].map { _ in v } }
                    let fast = try source.converted(to: .bgra, with: FrameConverter(colorSpace: space, implementation: .vectorized))
                    let reference = try source.converted(to: .bgra, with: FrameConverter(colorSpace: space, implementation: .reference))
                    #expect(fast == reference, "\(format) \(space) Y \(y) U \(u) V \(v)")
                }
            }
            for pixel in [[0, 0, 0, 0], [255, 255, 255, 255], [255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]] as [[UInt8]] {
                var source = TestFrame(.bgra, width: 70, height: 4)
                source.planes[0] = source.planes[0].indices.map { pixel[$0 % 4] }
                let fast = try source.converted(to: .i420, with: FrameConverter(colorSpace: space, implementation: .vectorized))
                let reference = try source.converted(to: .i420, with: FrameConverter(colorSpace: space, implementation: .reference))
                #expect(fast == reference, "BGRA \(space) \(pixel)")
            }
        }
    }
}

extension AVX2EquivalenceTests {
    /// Frames wider than a vector step whose widths leave every tail length the AVX2 rows
    /// handle by overlapping their last step (even widths) or by one copied pixel (odd).
    @Test(arguments: [32, 34, 62, 63, 64, 65, 66, 95, 97, 126, 1366])
    func tails(width: Int) throws {
        var rng = SplitMix64(seed: UInt64(100 + width))
        for (from, to) in [(PixelFormat.i420, PixelFormat.bgra), (.nv12, .bgra), (.bgra, .i420)] {
            let source = TestFrame.random(from, width: width, height: 5, padding: width % 7, using: &rng)
            let reference = try source.converted(to: to, with: FrameConverter(implementation: .reference), padding: 3, paddingFill: 0xAB)
            let fast = try source.converted(to: to, with: FrameConverter(implementation: .vectorized), padding: 3, paddingFill: 0xAB)
            #expect(VectorEquivalenceTests.firstDifference(fast, reference) == nil, "\(from)→\(to) width \(width)")
        }
    }
}
