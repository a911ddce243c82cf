import Testing
@testable import VideoFrames

/// The vectorised kernels against the scalar reference, bit for bit, on seeded random frames of
/// many sizes (odd ones, ones smaller than a vector, ones with a tail), strides with padding,
/// every colour space, and both threading modes.
@Suite("Vector kernels equal the scalar reference")
struct VectorEquivalenceTests {
    static let sizes: [(Int, Int)] = [(1, 1), (2, 2), (3, 5), (15, 1), (16, 2), (17, 3), (31, 7), (33, 33), (64, 9), (95, 17), (130, 66), (641, 363)]

    static func check(_ from: PixelFormat, _ to: PixelFormat, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for (width, height) in sizes {
            for space in YUVColorSpace.all {
                let padding = Int.random(in: 0...40, using: &rng)
                let source = TestFrame.random(from, width: width, height: height, padding: padding, using: &rng)
                let reference = try source.converted(to: to, with: FrameConverter(colorSpace: space, implementation: .reference), padding: 3, paddingFill: 0xAB)
                for parallelism in [Parallelism.none, .threads(3)] {
                    let fast = try source.converted(to: to, with: FrameConverter(colorSpace: space, implementation: .vectorized, parallelism: parallelism), padding: 3, paddingFill: 0xAB)
                    #expect(Self.firstDifference(fast, reference) == nil, "\(from)→\(to) \(width)x\(height) \(space) \(parallelism)")
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

    /// Stride padding of the destination is never written.
    @Test func paddingIsUntouched() throws {
        var rng = SplitMix64(seed: 5)
        let source = TestFrame.random(.i420, width: 37, height: 11, using: &rng)
        let out = try source.converted(to: .bgra, with: FrameConverter(), padding: 12, paddingFill: 0xAB)
        for row in 0..<11 {
            #expect(out.planes[0][(row * out.strides[0] + 37 * 4)..<((row + 1) * out.strides[0])].allSatisfy { $0 == 0xAB })
        }
    }
}
