#if !canImport(WebRTC)
#error("CallsWebRTC needs WebRTC.framework: Package.swift adds stasel/WebRTC on macOS hosts unless CALLSCOPE_NO_WEBRTC=1")
#endif
import CoreVideo
import Foundation
import VideoFrames
@preconcurrency import WebRTC

/// Makes a ``RetainedVideoFrame`` of a WebRTC frame without copying pixels where the buffer
/// allows it.
///
/// - `RTCCVPixelBuffer` in NV12 (`420v`, `420f`) or BGRA with whole-pixel crop and no scaling:
///   the pixel buffer is locked read-only and its planes (offset by the crop) are the frame's;
///   the owner keeps it locked and retained until the last copy of the frame is gone.
/// - Any I420 buffer (`RTCI420Buffer`, decoded VP8/VP9/AV1): its planes are the frame's; the
///   owner is the buffer.
/// - Anything else (scaled or odd-cropped pixel buffers, other layouts): `toI420()`, one copy
///   made by WebRTC, then wrapped as above.
///
/// Rotation comes from `rotation`, the timestamp from `timeStampNs` (as 90 kHz ticks,
/// ``PresentationClock/timestamp(nanoseconds:clockRate:)``). A buffer whose sizes, strides or
/// planes do not hold a frame throws the ``VideoFrameError`` that says why; the caller reports
/// it as a dropped frame.
enum WebRTCFrameWrapping {
    static func retained(_ frame: RTCVideoFrame) throws -> RetainedVideoFrame {
        guard let rotation = VideoRotation(degrees: frame.rotation.rawValue) else {
            throw VideoFrameError(.invalidDimensions, "rotation \(frame.rotation.rawValue)° is not a quarter turn")
        }
        let timestamp = PresentationClock.timestamp(nanoseconds: frame.timeStampNs)
        if let pixels = frame.buffer as? RTCCVPixelBuffer {
            if let wrapped = try wrap(pixels, timestamp: timestamp, rotation: rotation) { return wrapped }
            // `toI420()` converts only the formats WebRTC lists; anything else is not a picture to it.
            let format = CVPixelBufferGetPixelFormatType(pixels.pixelBuffer)
            guard RTCCVPixelBuffer.supportedPixelFormats().contains(NSNumber(value: format)) else {
                throw VideoFrameError(.unsupportedLayout, "pixel buffer format \(format) is neither NV12 nor BGRA, nor one WebRTC converts to I420")
            }
        }
        let i420 = (frame.buffer as? any RTCI420BufferProtocol) ?? frame.buffer.toI420()
        return try wrap(i420, timestamp: timestamp, rotation: rotation)
    }

    /// The three planes as the buffer describes them: each plane's length is what its declared
    /// rows occupy, so a chroma plane narrower or shorter than the frame needs is too short.
    static func wrap(_ buffer: any RTCI420BufferProtocol, timestamp: UInt32, rotation: VideoRotation) throws -> RetainedVideoFrame {
        let width = Int(buffer.width), height = Int(buffer.height)
        let chromaWidth = Int(buffer.chromaWidth), chromaHeight = Int(buffer.chromaHeight)
        func plane(_ data: UnsafePointer<UInt8>, stride: Int32, rowBytes: Int, rows: Int) -> VideoPlane {
            VideoPlane(base: UnsafeRawPointer(data), stride: Int(stride), rows: rows, rowBytes: rowBytes)
        }
        let frame = try VideoFrame.i420(y: plane(buffer.dataY, stride: buffer.strideY, rowBytes: width, rows: height),
                                        u: plane(buffer.dataU, stride: buffer.strideU, rowBytes: chromaWidth, rows: chromaHeight),
                                        v: plane(buffer.dataV, stride: buffer.strideV, rowBytes: chromaWidth, rows: chromaHeight),
                                        width: width, height: height, timestamp: timestamp, rotation: rotation)
        return RetainedVideoFrame(frame: frame, owner: buffer)
    }

    /// The locked pixel buffer's planes from the crop origin; `nil` when it has to go through
    /// `toI420()` (scaled, odd crop, another pixel format, no base address).
    static func wrap(_ buffer: RTCCVPixelBuffer, timestamp: UInt32, rotation: VideoRotation) throws -> RetainedVideoFrame? {
        let pixelBuffer = buffer.pixelBuffer
        let format = CVPixelBufferGetPixelFormatType(pixelBuffer)
        let isNV12 = format == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange || format == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
        let cropX = Int(buffer.cropX), cropY = Int(buffer.cropY), width = Int(buffer.cropWidth), height = Int(buffer.cropHeight)
        guard isNV12 || format == kCVPixelFormatType_32BGRA,
              Int(buffer.width) == width, Int(buffer.height) == height,   // no scaling pending
              cropX >= 0, cropY >= 0, !isNV12 || (cropX % 2 == 0 && cropY % 2 == 0) else { return nil }
        let lock = LockedPixelBuffer(buffer)
        guard lock.isLocked else { return nil }
        /// Plane `index` (`nil`: the single plane of BGRA) from the crop origin on.
        func plane(_ index: Int?, bytesPerPixel: Int, subsampling: Int) -> VideoPlane? {
            let base: UnsafeMutableRawPointer?, stride: Int, rows: Int
            if let index {
                (base, stride, rows) = (CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, index),
                                        CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, index), CVPixelBufferGetHeightOfPlane(pixelBuffer, index))
            } else {
                (base, stride, rows) = (CVPixelBufferGetBaseAddress(pixelBuffer), CVPixelBufferGetBytesPerRow(pixelBuffer), CVPixelBufferGetHeight(pixelBuffer))
            }
            guard let base else { return nil }
            let offset = (cropY / subsampling) * stride + (cropX / subsampling) * bytesPerPixel
            // What the buffer holds from the crop origin on; the frame checks that its rows fit.
            return VideoPlane(base: UnsafeRawPointer(base + offset), stride: stride, count: stride * rows - offset)
        }
        let frame: VideoFrame
        if isNV12 {
            guard let y = plane(0, bytesPerPixel: 1, subsampling: 1), let uv = plane(1, bytesPerPixel: 2, subsampling: 2) else { return nil }
            frame = try VideoFrame.nv12(y: y, uv: uv, width: width, height: height, timestamp: timestamp, rotation: rotation)
        } else {
            guard let pixels = plane(nil, bytesPerPixel: 4, subsampling: 1) else { return nil }
            frame = try VideoFrame.bgra(pixels, width: width, height: height, timestamp: timestamp, rotation: rotation)
        }
        return RetainedVideoFrame(frame: frame, owner: lock)
    }
}

/// Keeps an `RTCCVPixelBuffer` retained and its pixel buffer locked read-only while a frame
/// over its planes lives; unlocks when released.
final class LockedPixelBuffer {
    let buffer: RTCCVPixelBuffer
    let isLocked: Bool

    init(_ buffer: RTCCVPixelBuffer) {
        self.buffer = buffer
        isLocked = CVPixelBufferLockBaseAddress(buffer.pixelBuffer, .readOnly) == kCVReturnSuccess
    }

    deinit {
        if isLocked { CVPixelBufferUnlockBaseAddress(buffer.pixelBuffer, .readOnly) }
    }
}
