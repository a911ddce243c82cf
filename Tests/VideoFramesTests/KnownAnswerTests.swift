import Testing
@testable import VideoFrames

/// Hand-computed pixels: the textbook BT.601 / BT.709 formulas evaluated by hand (values in the
/// comments are the exact results before rounding), for black, white, grey, the primaries and
/// saturated codes, in both ranges. Both implementations must produce them exactly.
@Suite("Known answers")
struct KnownAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let space: YUVColorSpace, yuv: SIMD3<UInt8>, rgb: SIMD3<UInt8>, label: String
        var testDescription: String { "\(space) \(label)" }
    }

    static let yuvToRGB: [Case] = [
        // BT.601 limited: R = 1.16438 (Y − 16) + 1.59603 (V − 128), ...
        Case(space: .bt601Limited, yuv: [16, 128, 128], rgb: [0, 0, 0], label: "black"),
        Case(space: .bt601Limited, yuv: [235, 128, 128], rgb: [255, 255, 255], label: "white"),
        Case(space: .bt601Limited, yuv: [126, 128, 128], rgb: [128, 128, 128], label: "grey (128.082)"),
        Case(space: .bt601Limited, yuv: [81, 90, 240], rgb: [254, 0, 0], label: "red (254.440, −0.480, −0.970)"),
        Case(space: .bt601Limited, yuv: [145, 54, 34], rgb: [0, 255, 1], label: "green (0.179, 255.615, 0.930)"),
        Case(space: .bt601Limited, yuv: [41, 240, 110], rgb: [0, 0, 255], label: "blue (0.381, −0.134, 255.040)"),
        Case(space: .bt601Limited, yuv: [255, 255, 255], rgb: [255, 125, 255], label: "all 255 (480.98, 125.287, 534.48)"),
        Case(space: .bt601Limited, yuv: [0, 0, 0], rgb: [0, 136, 0], label: "all 0 (−222.9, 135.575, −276.8)"),
        // BT.601 full (JPEG): R = Y + 1.402 (V − 128), ...
        Case(space: .bt601Full, yuv: [0, 128, 128], rgb: [0, 0, 0], label: "black"),
        Case(space: .bt601Full, yuv: [255, 128, 128], rgb: [255, 255, 255], label: "white"),
        Case(space: .bt601Full, yuv: [128, 128, 128], rgb: [128, 128, 128], label: "grey"),
        Case(space: .bt601Full, yuv: [76, 85, 255], rgb: [254, 0, 0], label: "red (254.054, 0.103, −0.196)"),
        Case(space: .bt601Full, yuv: [150, 44, 21], rgb: [0, 255, 1], label: "green (−0.014, 255.320, 1.152)"),
        Case(space: .bt601Full, yuv: [29, 255, 107], rgb: [0, 0, 254], label: "blue (−0.442, 0.292, 254.044)"),
        Case(space: .bt601Full, yuv: [255, 255, 255], rgb: [255, 121, 255], label: "all 255 (433.05, 120.599, 480.04)"),
        // BT.709 limited: R = 1.16438 (Y − 16) + 1.79274 (V − 128), ...
        Case(space: .bt709Limited, yuv: [16, 128, 128], rgb: [0, 0, 0], label: "black"),
        Case(space: .bt709Limited, yuv: [235, 128, 128], rgb: [255, 255, 255], label: "white"),
        Case(space: .bt709Limited, yuv: [126, 128, 128], rgb: [128, 128, 128], label: "grey (128.082)"),
        Case(space: .bt709Limited, yuv: [63, 102, 240], rgb: [255, 1, 0], label: "red (255.513, 0.585, −0.196)"),
        Case(space: .bt709Limited, yuv: [173, 42, 26], rgb: [0, 255, 1], label: "green (−0.051, 255.504, 1.142)"),
        Case(space: .bt709Limited, yuv: [32, 240, 118], rgb: [1, 0, 255], label: "blue (0.703, 0.075, 255.219)"),
        Case(space: .bt709Limited, yuv: [0, 0, 0], rgb: [0, 77, 0], label: "all 0 (−248.1, 76.878, −289.0)"),
        // BT.709 full: R = Y + 1.5748 (V − 128), ...
        Case(space: .bt709Full, yuv: [0, 128, 128], rgb: [0, 0, 0], label: "black"),
        Case(space: .bt709Full, yuv: [255, 128, 128], rgb: [255, 255, 255], label: "white"),
        Case(space: .bt709Full, yuv: [54, 99, 255], rgb: [254, 0, 0], label: "red (254.000, −0.019, 0.188)"),
        Case(space: .bt709Full, yuv: [182, 30, 12], rgb: [0, 255, 0], label: "green (−0.677, 254.660, 0.151)"),
        Case(space: .bt709Full, yuv: [18, 255, 116], rgb: [0, 0, 254], label: "blue (−0.898, −0.173, 253.661)"),
        Case(space: .bt709Full, yuv: [255, 255, 255], rgb: [255, 172, 255], label: "all 255 (455.0, 171.758, 490.7)"),
    ]

    @Test("YUV → BGRA", arguments: yuvToRGB, FrameConverter.Implementation.allCases)
    func yuvToBGRA(_ c: Case, implementation: FrameConverter.Implementation) throws {
        // 35x3: the vector body, the scalar tail and an odd size, all on the same colour.
        let source = TestFrame.flat(width: 35, height: 3, y: c.yuv.x, u: c.yuv.y, v: c.yuv.z)
        for format in [PixelFormat.i420, .nv12] {
            var input = source
            if format == .nv12 { input = try source.converted(to: .nv12, with: FrameConverter()) }
            let out = try input.converted(to: .bgra, with: FrameConverter(colorSpace: c.space, implementation: implementation))
            for (x, y) in [(0, 0), (17, 1), (34, 2)] {
                #expect(out.pixel(x: x, y: y) == SIMD4(c.rgb.z, c.rgb.y, c.rgb.x, 255), "\(format) at \(x),\(y)")
            }
        }
    }

    static let rgbToYUV: [Case] = [
        // BT.601 limited: Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255, ...
        Case(space: .bt601Limited, yuv: [16, 128, 128], rgb: [0, 0, 0], label: "black"),
        Case(space: .bt601Limited, yuv: [235, 128, 128], rgb: [255, 255, 255], label: "white"),
        Case(space: .bt601Limited, yuv: [126, 128, 128], rgb: [128, 128, 128], label: "grey (125.929)"),
        Case(space: .bt601Limited, yuv: [81, 90, 240], rgb: [255, 0, 0], label: "red (81.481, 90.203, 240)"),
        Case(space: .bt601Limited, yuv: [145, 54, 34], rgb: [0, 255, 0], label: "green (144.553, 53.797, 34.214)"),
        Case(space: .bt601Limited, yuv: [41, 240, 110], rgb: [0, 0, 255], label: "blue (40.966, 240, 109.786)"),
        Case(space: .bt601Full, yuv: [76, 85, 255], rgb: [255, 0, 0], label: "red (76.245, 84.972, 255.5)"),
        Case(space: .bt601Full, yuv: [29, 255, 107], rgb: [0, 0, 255], label: "blue (29.070, 255.5, 107.265)"),
        Case(space: .bt709Limited, yuv: [63, 102, 240], rgb: [255, 0, 0], label: "red (62.559, 102.336, 240)"),
        Case(space: .bt709Limited, yuv: [173, 42, 26], rgb: [0, 255, 0], label: "green (172.629, 41.664, 26.270)"),
        Case(space: .bt709Full, yuv: [54, 99, 255], rgb: [255, 0, 0], label: "red (54.213, 98.784, 255.5)"),
        Case(space: .bt709Full, yuv: [182, 30, 12], rgb: [0, 255, 0], label: "green (182.376, 29.716, 12.191)"),
        Case(space: .bt709Full, yuv: [128, 128, 128], rgb: [128, 128, 128], label: "grey"),
    ]

    @Test("BGRA → I420", arguments: rgbToYUV, FrameConverter.Implementation.allCases)
    func bgraToI420(_ c: Case, implementation: FrameConverter.Implementation) throws {
        var source = TestFrame(.bgra, width: 35, height: 5)
        for i in stride(from: 0, to: source.planes[0].count, by: 4) {
            source.planes[0][i..<(i + 4)] = [c.rgb.z, c.rgb.y, c.rgb.x, 255]
        }
        let out = try source.converted(to: .i420, with: FrameConverter(colorSpace: c.space, implementation: implementation))
        #expect(out.planes[0].allSatisfy { $0 == c.yuv.x })
        #expect(out.planes[1].allSatisfy { $0 == c.yuv.y })
        #expect(out.planes[2].allSatisfy { $0 == c.yuv.z })
    }

    @Test func i420ToNV12Interleaves() throws {
        var source = TestFrame(.i420, width: 5, height: 3)
        source.planes = [Array(0..<15), [100, 101, 102, 103, 104, 105], [200, 201, 202, 203, 204, 205]]
        let out = try source.converted(to: .nv12, with: FrameConverter())
        #expect(out.planes[0] == Array(0..<15))
        #expect(out.planes[1] == [100, 200, 101, 201, 102, 202, 103, 203, 104, 204, 105, 205])
    }
}
