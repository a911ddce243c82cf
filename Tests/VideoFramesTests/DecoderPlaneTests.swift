import Testing
@testable import VideoFrames

/// Planes described the way WebRTC's `RTCI420Buffer` describes them (pointer, stride, width and
/// height of the plane), which is how `CallsWebRTC` wraps decoded frames without a copy: what
/// is accepted, and every bad buffer a typed error (the engine's counted drop), never a read
/// past the plane.
@Suite("Decoder-described planes")
struct DecoderPlaneTests {
    /// Wraps `bytes` with the geometry a decoder declares: U at `offsets.u`, V at `offsets.v`
    /// (by default right after Y and U, as libwebrtc allocates them); `body` gets the frame or
    /// the error.
    private func wrap(width: Int, height: Int, strides: (Int, Int, Int), chroma: (width: Int, height: Int), bytes: [UInt8],
                      offsets: (u: Int, v: Int)? = nil, _ body: (Result<VideoFrame, VideoFrameError>, UnsafeRawBufferPointer) -> Void) {
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            let uOffset = offsets?.u ?? strides.0 * height, vOffset = offsets?.v ?? uOffset + strides.1 * chroma.height
            let result: Result<VideoFrame, VideoFrameError>
            do {
                result = .success(try VideoFrame.i420(y: VideoPlane(base: base, stride: strides.0, rows: height, rowBytes: width),
                                                      u: VideoPlane(base: base + uOffset, stride: strides.1, rows: chroma.height, rowBytes: chroma.width),
                                                      v: VideoPlane(base: base + vOffset, stride: strides.2, rows: chroma.height, rowBytes: chroma.width),
                                                      width: width, height: height))
            } catch let error as VideoFrameError {
                result = .failure(error)
            } catch {
                Issue.record("not a VideoFrameError: \(error)")
                return
            }
            body(result, raw)
        }
    }

    @Test("an odd-sized I420 buffer is wrapped in place: the planes are the buffer's memory, the pixels its bytes")
    func zeroCopy() throws {
        // 3x3, Y stride 4 (one byte of padding), chroma 2x2 with stride 2: 12 + 4 + 4 bytes, the
        // last V row ending the buffer.
        let bytes: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9, 99, 10, 11, 12, 13, 20, 21, 22, 23]
        wrap(width: 3, height: 3, strides: (4, 2, 2), chroma: (2, 2), bytes: bytes) { result, raw in
            guard case .success(let frame) = result else { Issue.record("rejected: \(result)"); return }
            #expect(frame.plane(0).bytes.baseAddress == raw.baseAddress)
            #expect(frame.plane(1).bytes.baseAddress == raw.baseAddress! + 12)
            #expect(frame.plane(2).bytes.baseAddress == raw.baseAddress! + 16)
            #expect(frame.plane(2).bytes.count == 4)   // 2 · (2 - 1) + 2: nothing past the last pixel
            #expect(frame.packedBytes() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 20, 21, 22, 23])
        }
    }

    /// (name, strides, chroma size, the error's code and plane) for a 3x3 frame.
    static let badBuffers: [(String, (Int, Int, Int), (Int, Int), VideoFrameError.Code, Int)] = [
        ("zero luma stride", (0, 2, 2), (2, 2), .strideTooSmall, 0),
        ("negative chroma stride", (4, -2, 2), (2, 2), .strideTooSmall, 1),
        ("luma stride narrower than a row", (2, 2, 2), (2, 2), .strideTooSmall, 0),
        ("chroma declared one column short", (4, 2, 2), (1, 2), .planeTooShort, 1),
        ("chroma declared one row short", (4, 2, 2), (2, 1), .planeTooShort, 1),
        ("a stride whose rows overflow", (Int.max, 2, 2), (2, 2), .planeTooShort, 0),
    ]

    @Test("bad buffers are typed errors naming the plane", arguments: badBuffers)
    func rejected(name: String, strides: (Int, Int, Int), chroma: (Int, Int), code: VideoFrameError.Code, plane: Int) {
        let bytes = [UInt8](repeating: 0, count: 64)
        wrap(width: 3, height: 3, strides: strides, chroma: (chroma.0, chroma.1), bytes: bytes, offsets: (16, 32)) { result, _ in
            guard case .failure(let error) = result else { Issue.record("\(name) was accepted"); return }
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.plane == plane, "\(name): \(error)")
        }
    }

    @Test("a zero or negative size is rejected before any plane is read")
    func badSize() {
        wrap(width: 0, height: 3, strides: (4, 2, 2), chroma: (0, 2), bytes: [UInt8](repeating: 0, count: 32), offsets: (16, 24)) { result, _ in
            guard case .failure(let error) = result else { Issue.record("accepted"); return }
            #expect(error.code == .invalidDimensions)
        }
    }
}
