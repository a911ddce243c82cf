@testable import VideoFrames

/// A small deterministic generator (SplitMix64) for seeded property tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A frame for tests: one byte array per plane, rows `stride` apart, possibly padded. Viewed
/// through the public `VideoFrame` / `MutableVideoFrame` initialisers, as an app's frames are.
struct TestFrame: Equatable {
    var format: PixelFormat
    var width: Int
    var height: Int
    var strides: [Int]
    var planes: [[UInt8]]

    /// A frame filled with `fill`, rows padded by `padding` bytes.
    init(_ format: PixelFormat, width: Int, height: Int, padding: Int = 0, fill: UInt8 = 0) {
        self.format = format
        self.width = width
        self.height = height
        let strides = (0..<format.planeCount).map { format.rowBytes(plane: $0, width: width) + padding }
        self.strides = strides
        planes = (0..<format.planeCount).map { [UInt8](repeating: fill, count: strides[$0] * format.rows(plane: $0, height: height)) }
    }

    /// A frame of seeded random bytes, padding included (a kernel reading it would show).
    static func random(_ format: PixelFormat, width: Int, height: Int, padding: Int = 0, using rng: inout SplitMix64) -> TestFrame {
        var frame = TestFrame(format, width: width, height: height, padding: padding)
        for p in frame.planes.indices {
            for i in frame.planes[p].indices { frame.planes[p][i] = UInt8.random(in: .min ... .max, using: &rng) }
        }
        return frame
    }

    /// An I420 frame whose every sample is `y`, `u`, `v`.
    static func flat(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) -> TestFrame {
        var frame = TestFrame(.i420, width: width, height: height)
        frame.planes = [frame.planes[0].map { _ in y }, frame.planes[1].map { _ in u }, frame.planes[2].map { _ in v }]
        return frame
    }

    func withFrame<R>(_ body: (VideoFrame) throws -> R) throws -> R {
        try planes[0].withUnsafeBytes { p0 in
            try (planes.count > 1 ? planes[1] : []).withUnsafeBytes { p1 in
                try (planes.count > 2 ? planes[2] : []).withUnsafeBytes { p2 in
                    let views = [VideoPlane(bytes: p0, stride: strides[0]),
                                 VideoPlane(bytes: p1, stride: strides.count > 1 ? strides[1] : 0),
                                 VideoPlane(bytes: p2, stride: strides.count > 2 ? strides[2] : 0)]
                    return try body(VideoFrame(format: format, width: width, height: height, planes: Array(views.prefix(format.planeCount))))
                }
            }
        }
    }

    mutating func withMutableFrame<R>(_ body: (MutableVideoFrame) throws -> R) throws -> R {
        var (a, b, c) = (planes[0], planes.count > 1 ? planes[1] : [], planes.count > 2 ? planes[2] : [])
        defer { planes = Array([a, b, c].prefix(format.planeCount)) }
        let (format, width, height, strides) = (self.format, self.width, self.height, self.strides)
        return try a.withUnsafeMutableBytes { p0 in
            try b.withUnsafeMutableBytes { p1 in
                try c.withUnsafeMutableBytes { p2 in
                    let views = [MutableVideoPlane(bytes: p0, stride: strides[0]),
                                 MutableVideoPlane(bytes: p1, stride: strides.count > 1 ? strides[1] : 0),
                                 MutableVideoPlane(bytes: p2, stride: strides.count > 2 ? strides[2] : 0)]
                    return try body(MutableVideoFrame(format: format, width: width, height: height, planes: Array(views.prefix(format.planeCount))))
                }
            }
        }
    }

    /// `self` converted to `format` by `converter`, into a destination whose padding starts as
    /// `paddingFill`.
    func converted(to format: PixelFormat, with converter: FrameConverter, padding: Int = 0, paddingFill: UInt8 = 0) throws -> TestFrame {
        var destination = TestFrame(format, width: width, height: height, padding: padding, fill: paddingFill)
        try withFrame { source in try destination.withMutableFrame { try converter.convert(source, into: $0) } }
        return destination
    }

    /// The BGRA pixel at `x`, `y`.
    func pixel(x: Int, y: Int) -> SIMD4<UInt8> {
        let o = y * strides[0] + 4 * x
        return SIMD4(planes[0][o], planes[0][o + 1], planes[0][o + 2], planes[0][o + 3])
    }

    /// Sample `x`, `y` of `plane`.
    func sample(plane: Int, x: Int, y: Int) -> UInt8 { planes[plane][y * strides[plane] + x] }
}
