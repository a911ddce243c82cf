import Testing
@testable import VideoFrames
import VideoFramesReference

/// Side by side with libyuv, the reference implementation, where it can be loaded (`libyuv0`
/// on Debian). Where it cannot, these tests are skipped and the skip names the reason.
///
/// libyuv keeps 6 fractional bits of its coefficients and is off the exact conversion by up to
/// 3 (measured: BT.601 2.6, JPEG 1.3, F709 0.9); its BT.709 limited-range path is off by up to
/// 14.6 in blue for large U (its blue coefficient, 2.112, does not fit its 8-bit multiplier).
/// Ours is within ±1 everywhere. So: wherever libyuv is within 3 of exact the two agree within
/// 4, and ours is never further from exact than libyuv.
@Suite("Against libyuv", .enabled(if: LibYUV.shared != nil, "libyuv is not installed (apt-get install libyuv0): comparison not run"))
struct LibYUVComparisonTests {
    static let spaces = YUVColorSpace.all

    @Test("I420 / NV12 → BGRA", arguments: spaces)
    func yuvToBGRA(space: YUVColorSpace) throws {
        let library = try #require(LibYUV.shared)
        var rng = SplitMix64(seed: 11)
        for format in [PixelFormat.i420, .nv12] {
            for (width, height) in [(64, 48), (33, 17), (640, 360)] {
                let source = TestFrame.random(format, width: width, height: height, padding: 5, using: &rng)
                let ours = try source.converted(to: .bgra, with: FrameConverter(colorSpace: space))
                var theirs = TestFrame(.bgra, width: width, height: height)
                try source.withFrame { s in try theirs.withMutableFrame { try library.convert(s, into: $0, colorSpace: space) } }
                let (difference, oursError, theirsError) = try Self.compare(source, ours: ours, theirs: theirs, space: space)
                #expect(difference <= 4, "\(format) \(width)x\(height): differ by \(difference) where libyuv is within 3 of exact")
                #expect(oursError <= 1.0, "ours off exact by \(oursError)")
                #expect(oursError <= theirsError, "ours off exact by \(oursError), libyuv by \(theirsError)")
            }
        }
    }

    @Test("BGRA → I420 (libyuv has BT.601 only)", arguments: [YUVColorSpace.bt601Limited, .bt601Full])
    func bgraToI420(space: YUVColorSpace) throws {
        let library = try #require(LibYUV.shared)
        guard library.supports(from: .bgra, to: .i420, colorSpace: space) else { return }
        var rng = SplitMix64(seed: 12)
        let source = TestFrame.random(.bgra, width: 96, height: 64, using: &rng)
        let ours = try source.converted(to: .i420, with: FrameConverter(colorSpace: space))
        var theirs = TestFrame(.i420, width: 96, height: 64)
        try source.withFrame { s in try theirs.withMutableFrame { try library.convert(s, into: $0, colorSpace: space) } }
        for plane in 0..<3 {
            let difference = zip(ours.planes[plane], theirs.planes[plane]).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(difference <= 2, "plane \(plane) differs by \(difference)")
        }
    }

    /// The bench's same-width column converts the same pixels: libyuv's 128-bit and AVX2 row
    /// functions are written to agree, so restricting it must not change a byte, and its full
    /// width must come back afterwards (the same bytes again, outside the closure).
    @Test("libyuv restricted to 128-bit vectors converts the same")
    func restrictedWidth() throws {
        let library = try #require(LibYUV.shared)
        try #require(library.canRestrictVectorWidth, "this libyuv has no MaskCpuFlags")
        var rng = SplitMix64(seed: 13)
        let source = TestFrame.random(.i420, width: 640, height: 360, padding: 0, using: &rng)
        func convert() throws -> TestFrame {
            var out = TestFrame(.bgra, width: 640, height: 360)
            try source.withFrame { s in try out.withMutableFrame { try library.convert(s, into: $0, colorSpace: .bt601Limited) } }
            return out
        }
        let wide = try convert()
        let narrow = try library.withoutWideVectors { try convert() }
        #expect(narrow.planes == wide.planes)
        #expect(try convert().planes == wide.planes)
    }

    /// The largest difference between the outputs where libyuv is within 3 of exact, and each
    /// one's largest distance from the exact conversion.
    static func compare(_ source: TestFrame, ours: TestFrame, theirs: TestFrame, space: YUVColorSpace) throws -> (Int, Double, Double) {
        var difference = 0, oursError = 0.0, theirsError = 0.0
        for y in 0..<source.height {
            for x in 0..<source.width {
                let (u, v) = source.format == .nv12
                    ? (source.sample(plane: 1, x: 2 * (x / 2), y: y / 2), source.sample(plane: 1, x: 2 * (x / 2) + 1, y: y / 2))
                    : (source.sample(plane: 1, x: x / 2, y: y / 2), source.sample(plane: 2, x: x / 2, y: y / 2))
                let exact = space.rgb(y: Double(source.sample(plane: 0, x: x, y: y)), u: Double(u), v: Double(v))
                let a = ours.pixel(x: x, y: y), b = theirs.pixel(x: x, y: y)
                for (channel, value) in [(2, exact.x), (1, exact.y), (0, exact.z)] {
                    let clamped = min(max(value, 0), 255)
                    let theirs = abs(Double(b[channel]) - clamped)
                    if theirs <= 3 { difference = max(difference, abs(Int(a[channel]) - Int(b[channel]))) }
                    oursError = max(oursError, abs(Double(a[channel]) - clamped))
                    theirsError = max(theirsError, theirs)
                }
            }
        }
        return (difference, oursError, theirsError)
    }
}
