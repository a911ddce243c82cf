import Testing
@testable import VideoFrames

/// BGRA → I420 → BGRA loses only quantisation. On flat 2x2 blocks (so chroma subsampling
/// averages nothing away) the error is at most 2 per channel in limited range (Y has 219
/// levels, chroma 225) and 1 in full range; grey comes back within 1 (limited) or exactly
/// (full). The bounds are checked for all 2²⁴ colours through the integer formulas, and on
/// frames through the converters (whose vector kernels give the formulas' bytes exactly).
@Suite("Round trips")
struct RoundTripTests {
    static func bound(_ space: YUVColorSpace) -> Int { space.range == .limited ? 2 : 1 }

    /// A frame of flat 2x2 blocks of seeded random colours, `grey` making R = G = B.
    static func blocks(width: Int, height: Int, grey: Bool, seed: UInt64) -> TestFrame {
        var rng = SplitMix64(seed: seed)
        var frame = TestFrame(.bgra, width: width, height: height)
        for by in stride(from: 0, to: height, by: 2) {
            for bx in stride(from: 0, to: width, by: 2) {
                let r = UInt8.random(in: 0...255, using: &rng)
                let color: [UInt8] = grey ? [r, r, r, 255] : [UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng), r, 255]
                for y in by..<min(by + 2, height) {
                    for x in bx..<min(bx + 2, width) {
                        let o = y * frame.strides[0] + 4 * x
                        frame.planes[0][o..<(o + 4)] = color[...]
                    }
                }
            }
        }
        return frame
    }

    static func maxError(_ a: TestFrame, _ b: TestFrame) -> Int {
        zip(a.planes[0], b.planes[0]).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test("random colours in flat blocks", arguments: YUVColorSpace.all)
    func colours(space: YUVColorSpace) throws {
        let converter = FrameConverter(colorSpace: space)
        for (width, height, seed) in [(64, 64, UInt64(1)), (37, 21, 2), (256, 128, 3)] {
            let source = Self.blocks(width: width, height: height, grey: false, seed: seed)
            let back = try source.converted(to: .i420, with: converter).converted(to: .bgra, with: converter)
            #expect(Self.maxError(source, back) <= Self.bound(space), "\(width)x\(height)")
        }
    }

    @Test("grey", arguments: YUVColorSpace.all)
    func grey(space: YUVColorSpace) throws {
        let converter = FrameConverter(colorSpace: space)
        let source = Self.blocks(width: 130, height: 66, grey: true, seed: 4)
        let back = try source.converted(to: .i420, with: converter).converted(to: .bgra, with: converter)
        #expect(Self.maxError(source, back) <= (space.range == .limited ? 1 : 0))
    }

    @Test("every colour, through the shared integer formulas", arguments: YUVColorSpace.all)
    func everyColour(space: YUVColorSpace) {
        // Flat blocks through the reference's own pixel functions: forward with ΣX = 4X.
        let f = RGBToYUVCoefficients(space), k = YUVToRGBCoefficients(space)
        var worst = 0
        for r in 0...255 {
            for g in 0...255 {
                for b in 0...255 {
                    let (r32, g32, b32) = (Int32(r), Int32(g), Int32(b))
                    let y = f.luma(b: b32, g: g32, r: r32)
                    let (u, v) = f.chroma(b: 4 * b32, g: 4 * g32, r: 4 * r32)
                    let p = ReferenceKernels.bgraPixel(y: y, u: u, v: v, k)
                    worst = max(worst, abs(Int(p & 0xFF) - b), abs(Int((p >> 8) & 0xFF) - g), abs(Int((p >> 16) & 0xFF) - r))
                }
            }
        }
        #expect(worst <= Self.bound(space))
    }
}
