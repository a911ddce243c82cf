import Foundation
import Testing
@testable import VideoFrames

/// libyuv's `I420Scale`, loaded at run time (`nil` when libyuv is not installed).
private let libyuvI420Scale: I420ScaleFunction? = {
    guard let handle = dlopen("libyuv.so.0", RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "I420Scale") else { return nil }
    return unsafeBitCast(symbol, to: I420ScaleFunction.self)
}()

private typealias I420ScaleFunction = @convention(c) (UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, Int32, Int32,
                                                      UnsafeMutablePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32,
                                                      UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32, Int32) -> Int32

/// The box scaler that makes the received-video truth's references, against libyuv's
/// `I420Scale(..., kFilterBox)` (what libwebrtc scales simulcast layers with), when libyuv is
/// installed: the same bytes, every plane, at the layers' sizes (the chroma of 240x135 is a
/// 270 → 68 row ratio, libyuv's fixed-point box).
@Suite("Box scaler against libyuv", .enabled(if: libyuvI420Scale != nil, "needs libyuv.so.0"))
struct BoxScalerLibYUVTests {
    /// libyuv's `FilterMode` value for a box filter.
    static let filterBox: Int32 = 3

    static func libyuv(_ source: VideoFrameBuffer, width: Int, height: Int) throws -> VideoFrameBuffer {
        var output = try VideoFrameBuffer(format: .i420, width: width, height: height)
        let scale = try #require(libyuvI420Scale)
        let offsets = (0..<3).map { output.planeOffset($0) }, strides = (0..<3).map { Int32(output.stride($0)) }
        let status = source.storage.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBytes { raw in
                let out = raw.bindMemory(to: UInt8.self).baseAddress!, base = input.baseAddress!
                return scale(base + source.planeOffset(0), Int32(source.stride(0)), base + source.planeOffset(1), Int32(source.stride(1)),
                             base + source.planeOffset(2), Int32(source.stride(2)), Int32(source.width), Int32(source.height),
                             out + offsets[0], strides[0], out + offsets[1], strides[1], out + offsets[2], strides[2],
                             Int32(width), Int32(height), Self.filterBox)
            }
        }
        #expect(status == 0)
        return output
    }

    @Test("the simulcast layers are libyuv's, bit for bit", arguments: [(480, 270), (240, 135)])
    func layers(width: Int, height: Int) throws {
        let clip = try MarkerClip(width: 960, height: 540, frameRate: 15, frameCount: 30)
        for index in [0, 17] {
            let source = try clip.frame(index)
            let ours = try source.withFrame { try BoxScaler.scaled($0, width: width, height: height) }
            let theirs = try Self.libyuv(source, width: width, height: height)
            let luma = width * height
            let lumaDifferences = zip(ours.storage[..<luma], theirs.storage[..<luma]).filter { $0 != $1 }.count
            let chroma = zip(ours.storage[luma...], theirs.storage[luma...]).map { abs(Int($0) - Int($1)) }
            // Before the fixed-point box, rounding to nearest at 270 → 68 rows left 6,175-6,211 of
            // the 16,320 chroma samples of 240x135 one or two levels off.
            #expect(lumaDifferences == 0, "frame \(index) at \(width)x\(height): \(lumaDifferences) luma samples differ")
            #expect(chroma.max() ?? 0 == 0, "frame \(index) at \(width)x\(height): chroma differs by up to \(chroma.max() ?? 0) (\(chroma.filter { $0 > 0 }.count) samples)")
        }
    }
}
