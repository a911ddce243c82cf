import Testing
@testable import VideoFrames

/// PSNR and the box scaler of the received-video truth, against values computed by hand.
@Suite("PSNR and box scaling")
struct PictureQualityTests {
    static func flat(_ width: Int, _ height: Int, y: UInt8, u: UInt8 = 128, v: UInt8 = 128) throws -> VideoFrameBuffer {
        let luma = width * height, chroma = PixelFormat.chromaSize(width) * PixelFormat.chromaSize(height)
        return try VideoFrameBuffer(format: .i420, width: width, height: height,
                                    packed: [UInt8](repeating: y, count: luma) + [UInt8](repeating: u, count: chroma) + [UInt8](repeating: v, count: chroma))
    }

    // 10·log10(255² / k²) = 20·log10(255 / k): k = 1 → 48.1308, 5 → 20·log10(51) = 34.1514,
    // 16 → 20·log10(15.9375) = 24.0484 (by hand, with a calculator).
    @Test("a constant offset k gives 10·log10(255²/k²)", arguments: [(1, 48.1308), (5, 34.1514), (16, 24.0484)])
    func constantOffset(k: Int, expected: Double) throws {
        let a = try Self.flat(64, 36, y: 100, u: 90, v: 160)
        let b = try Self.flat(64, 36, y: UInt8(100 + k), u: 90, v: UInt8(160 - k))
        let psnr = try a.withFrame { a in try b.withFrame { try PeakSignalToNoise.measure(a, against: $0) } }
        #expect(abs(psnr.y - expected) < 0.0001)
        #expect(abs(psnr.v - expected) < 0.0001)
        #expect(psnr.u == PeakSignalToNoise.identical)
    }

    @Test("half the pixels off by 10: MSE 50, 10·log10(65025/50) = 31.1411 dB")
    func halfThePixels() throws {
        let a = try Self.flat(8, 8, y: 50)
        var b = a
        b.withUnsafeMutableBytes { bytes in for offset in stride(from: 0, to: 64, by: 2) { bytes[offset] = 60 } }
        let psnr = try a.withFrame { a in try b.withFrame { try PeakSignalToNoise.measure(a, against: $0) } }
        #expect(abs(psnr.y - 31.1411) < 0.0001)
    }

    @Test("frames of different sizes, or BGRA, are a typed error")
    func mismatch() throws {
        let a = try Self.flat(8, 8, y: 50), b = try Self.flat(8, 6, y: 50)
        let bgra = try VideoFrameBuffer(format: .bgra, width: 8, height: 8)
        #expect(throws: VideoFrameError.self) { try a.withFrame { a in try b.withFrame { try PeakSignalToNoise.measure(a, against: $0) } } }
        #expect(throws: VideoFrameError.self) { try a.withFrame { a in try bgra.withFrame { try PeakSignalToNoise.measure(a, against: $0) } } }
        #expect(throws: VideoFrameError.self) { try b.withFrame { try BoxScaler.scaled($0, width: 16, height: 6) } }
    }

    @Test("box scaling by 2 averages each 2x2 block (rounded to nearest); by 3, libyuv's fixed-point box")
    func boxAverages() throws {
        // Luma 4x2: rows 0 2 4 6 / 8 10 12 15 → (0+2+8+10)/4 = 5, (4+6+12+15)/4 = 9.25 → 9.
        var frame = try Self.flat(4, 2, y: 0, u: 100, v: 200)
        frame.withUnsafeMutableBytes { bytes in for (offset, value) in [0, 2, 4, 6, 8, 10, 12, 15].enumerated() { bytes[offset] = UInt8(value) } }
        let half = try frame.withFrame { try BoxScaler.scaled($0, width: 2, height: 1) }
        #expect(Array(half.storage) == [5, 9, 100, 200])
        // 3x3 → 1x1: 1...9 sum 45; libyuv's box (not a whole ratio of 2 or 4) takes
        // 45 · floor(65536 / 9) >> 16 = 45 · 7281 >> 16 = 327645 >> 16 = 4 (it truncates: the
        // exact mean is 5).
        var nine = try Self.flat(3, 3, y: 0)
        nine.withUnsafeMutableBytes { bytes in for offset in 0..<9 { bytes[offset] = UInt8(offset + 1) } }
        let one = try nine.withFrame { try BoxScaler.scaled($0, width: 1, height: 1) }
        #expect(one.storage[0] == 4)
        #expect(BoxScaler.boxRange(1, source: 960, destination: 640) == 1..<3)
    }

    @Test("NV12 is scaled and measured as its Y, U, V")
    func nv12() throws {
        var nv12 = try VideoFrameBuffer(format: .nv12, width: 4, height: 2)
        nv12.withUnsafeMutableBytes { bytes in
            for offset in 0..<8 { bytes[offset] = 40 }
            bytes[8] = 90; bytes[9] = 150; bytes[10] = 94; bytes[11] = 154      // U V U V
        }
        let scaled = try nv12.withFrame { try BoxScaler.scaled($0, width: 2, height: 1) }
        #expect(Array(scaled.storage) == [40, 40, 92, 152])
        let i420 = try Self.flat(4, 2, y: 40, u: 92, v: 152)
        let psnr = try nv12.withFrame { a in try i420.withFrame { try PeakSignalToNoise.measure(a, against: $0) } }
        // Chroma off by 2 on each of 2 samples: MSE 4 → 10·log10(65025/4) = 42.1102 dB.
        #expect(psnr.y == PeakSignalToNoise.identical && abs(psnr.u - 42.1102) < 0.0001 && abs(psnr.v - 42.1102) < 0.0001)
    }
}
