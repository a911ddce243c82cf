import Testing
@testable import VideoFrames

/// Frames are validated when made: bad sizes, strides and plane lengths are typed errors.
@Suite("Frame validation")
struct FrameValidationTests {
    static func makeI420(width: Int, height: Int, yStride: Int? = nil, yCount: Int? = nil, uStride: Int? = nil, uCount: Int? = nil) throws -> VideoFrame {
        let chromaWidth = PixelFormat.chromaSize(width), chromaHeight = PixelFormat.chromaSize(height)
        let ys = yStride ?? width, us = uStride ?? chromaWidth
        let y = [UInt8](repeating: 0, count: yCount ?? max(ys * height, 0))
        let u = [UInt8](repeating: 0, count: uCount ?? max(us * chromaHeight, 0))
        return try y.withUnsafeBytes { yb in
            try u.withUnsafeBytes { ub in
                try VideoFrame.i420(y: VideoPlane(bytes: yb, stride: ys), u: VideoPlane(bytes: ub, stride: us), v: VideoPlane(bytes: ub, stride: us), width: width, height: height)
            }
        }
    }

    static func code(_ body: () throws -> Void) -> VideoFrameError.Code? {
        do { try body() } catch let error as VideoFrameError { return error.code } catch { return nil }
        return nil
    }

    @Test("odd sizes are legal; chroma planes are ceil(w/2) x ceil(h/2)", arguments: [(1, 1), (3, 3), (5, 2), (2, 7), (1921, 1081)])
    func oddSizes(size: (Int, Int)) throws {
        let frame = try Self.makeI420(width: size.0, height: size.1)
        #expect(frame.format.rowBytes(plane: 1, width: size.0) == (size.0 + 1) / 2)
        #expect(frame.format.rows(plane: 2, height: size.1) == (size.1 + 1) / 2)
        #expect(PixelFormat.nv12.rowBytes(plane: 1, width: size.0) == 2 * ((size.0 + 1) / 2))
    }

    @Test("a plane only needs its last row, not its last stride")
    func shortLastRow() throws {
        _ = try Self.makeI420(width: 10, height: 4, yStride: 16, yCount: 16 * 3 + 10)
        #expect(Self.code { _ = try Self.makeI420(width: 10, height: 4, yStride: 16, yCount: 16 * 3 + 9) } == .planeTooShort)
    }

    @Test("sizes out of range", arguments: [(0, 10), (10, 0), (-2, 4), (16_385, 2), (2, 100_000)])
    func invalidDimensions(size: (Int, Int)) {
        #expect(Self.code { _ = try Self.makeI420(width: size.0, height: size.1, yStride: 4, yCount: 64, uStride: 4, uCount: 64) } == .invalidDimensions)
    }

    @Test func strideSmallerThanRow() {
        #expect(Self.code { _ = try Self.makeI420(width: 10, height: 4, yStride: 9) } == .strideTooSmall)
        #expect(Self.code { _ = try Self.makeI420(width: 9, height: 4, uStride: 4) } == .strideTooSmall)
        #expect(Self.code { _ = try Self.makeI420(width: 10, height: 4, yStride: -10, yCount: 40) } == .strideTooSmall)
    }

    @Test func truncatedPlanes() {
        #expect(Self.code { _ = try Self.makeI420(width: 10, height: 4, yCount: 39) } == .planeTooShort)
        #expect(Self.code { _ = try Self.makeI420(width: 9, height: 5, uCount: 14) } == .planeTooShort)
        // A stride so large that rows × stride overflows is a short plane, not a crash.
        #expect(Self.code { _ = try Self.makeI420(width: 10, height: 4, yStride: Int.max / 2, yCount: 100) } == .planeTooShort)
    }

    @Test func errorsNameThePlaneAndValues() {
        do {
            _ = try Self.makeI420(width: 9, height: 5, uCount: 14)
            Issue.record("expected an error")
        } catch let error as VideoFrameError {
            #expect(error.plane == 1)
            #expect(error.description.contains("14 bytes"))
            #expect(error.description.contains("15 needed"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func wrongPlaneCount() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        let code = Self.code {
            try bytes.withUnsafeBytes { _ = try VideoFrame(format: .i420, width: 4, height: 4, planes: [VideoPlane(bytes: $0, stride: 4)]) }
        }
        #expect(code == .wrongPlaneCount)
    }

    @Test func converterRejectsMismatches() throws {
        let source = TestFrame(.i420, width: 8, height: 8)
        var smaller = TestFrame(.bgra, width: 8, height: 6)
        #expect(Self.code { try source.withFrame { s in try smaller.withMutableFrame { try FrameConverter().convert(s, into: $0) } } } == .sizeMismatch)
        var nv12 = TestFrame(.nv12, width: 8, height: 8)
        let bgra = TestFrame(.bgra, width: 8, height: 8)
        #expect(Self.code { try bgra.withFrame { s in try nv12.withMutableFrame { try FrameConverter().convert(s, into: $0) } } } == .unsupportedConversion)
        #expect(FrameConverter.supports(from: .nv12, to: .bgra))
        #expect(!FrameConverter.supports(from: .bgra, to: .nv12))
    }

    @Test func ownedBuffers() throws {
        var buffer = try VideoFrameBuffer(format: .i420, width: 5, height: 3, rowAlignment: 16)
        #expect(buffer.stride(0) == 16 && buffer.stride(1) == 16 && buffer.stride(2) == 16)
        #expect(buffer.planeOffset(1) == 48 && buffer.planeOffset(2) == 80 && buffer.storage.count == 112)
        buffer.withUnsafeMutableBytes { bytes in for i in bytes.indices { bytes[i] = UInt8(i % 251) } }
        let packed = buffer.withFrame { $0.packedBytes() }
        #expect(packed.count == VideoFrame.packedCount(format: .i420, width: 5, height: 3))
        #expect(Array(packed.prefix(7)) == [0, 1, 2, 3, 4, 16, 17])
        let copy = try VideoFrameBuffer(format: .i420, width: 5, height: 3, packed: packed)
        #expect(copy.withFrame { $0.packedBytes() } == packed)
        #expect(Self.code { _ = try VideoFrameBuffer(format: .i420, width: 5, height: 3, packed: Array(packed.dropLast())) } == .planeTooShort)
    }
}
