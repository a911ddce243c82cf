import Calls
import Observability
import VideoFrames

extension FakeMediaEngine {
    /// Makes an I420 frame as an engine would from a decoder's planes, and hands it to the sink
    /// of `pc` without copying (the planes stay owned by a buffer object, as an
    /// `RTCI420Buffer` would own them). When the geometry is bad (`lumaStride` 0 or smaller
    /// than a row, `lumaBytes` shorter than the rows need) the frame is rejected as an engine
    /// must: ``MediaEngineEvent/videoFrameRejected(_:source:reason:)`` with
    /// ``VideoFrameError``'s words, no frame delivered.
    ///
    /// - Parameters:
    ///   - lumaStride: the Y plane's stride (default: `width`).
    ///   - lumaBytes: the Y plane's length (default: `lumaStride * height`).
    ///   - luma: the value of every Y byte (chroma is 128).
    /// - Returns: whether a sink took a frame.
    @discardableResult
    public func deliverSyntheticI420(on pc: PeerConnectionID, source: VideoTrackSource = .remote, width: Int, height: Int,
                                     lumaStride: Int? = nil, lumaBytes: Int? = nil, luma: UInt8 = 16, timestamp: UInt32 = 0,
                                     rotation: VideoRotation = .none, captureTimeMicroseconds: Int64? = nil) -> Bool {
        let chromaWidth = PixelFormat.chromaSize(max(width, 0)), chromaHeight = PixelFormat.chromaSize(max(height, 0))
        let yStride = lumaStride ?? width
        let planes = SyntheticPlanes(lengths: [lumaBytes ?? max(yStride * height, 0), chromaWidth * chromaHeight, chromaWidth * chromaHeight],
                                     fill: [luma, 128, 128])
        do {
            let frame = try VideoFrame.i420(y: planes.plane(0, stride: yStride), u: planes.plane(1, stride: chromaWidth),
                                            v: planes.plane(2, stride: chromaWidth), width: width, height: height,
                                            timestamp: timestamp, rotation: rotation)
            return deliverVideoFrame(EngineVideoFrame(peerConnection: pc, source: source, frame: RetainedVideoFrame(frame: frame, owner: planes),
                                                      captureTimeMicroseconds: captureTimeMicroseconds))
        } catch {
            emit(.videoFrameRejected(pc, source: source, reason: "\(error)"))
            return false
        }
    }
}

/// Plane memory owned by an object, as an engine's frame buffer owns it: freed when the last
/// frame over it is released.
final class SyntheticPlanes: @unchecked Sendable {
    // @unchecked: the memory is written once in init and only read afterwards.
    private let memory: [UnsafeMutableRawBufferPointer]

    init(lengths: [Int], fill: [UInt8]) {
        memory = zip(lengths, fill).map { length, value in
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(length, 0), alignment: 64)
            bytes.initializeMemory(as: UInt8.self, repeating: value)
            return bytes
        }
    }

    func plane(_ index: Int, stride: Int) -> VideoPlane {
        VideoPlane(bytes: UnsafeRawBufferPointer(memory[index]), stride: stride)
    }

    deinit {
        for bytes in memory { bytes.deallocate() }
    }
}
