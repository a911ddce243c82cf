import CallScopeTestSupport
import Foundation
import RTCStats
import Testing
@testable import VideoFrames
import VideoFramesReference

/// Frames decoded by libwebrtc in real calls made by the rig (`Rig/record.py --frames`): the
/// publisher's camera was a NASA photograph (public domain, from scikit-image's sample data) or
/// Chromium's own test pattern, sent as VP8 simulcast through Janus; the subscriber switched to
/// the lowest layer (960x540 / 4 = 240x135, an odd height) and copied what its decoder produced
/// (WebCodecs `VideoFrame.copyTo`). WebCodecs reported BT.601 (`smpte170m`), limited range.
@Suite("Real decoded frames")
struct RealFramesTests {
    static let files: [(name: String, frames: Int)] = [("astronaut-vp8-240x135.y4m.gz", 4), ("chromium-pattern-vp8-240x135.y4m.gz", 8)]

    /// The clip's Y4M bytes, decompressed.
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/frames/" + name)
        return try Gzip.decompress([UInt8](Data(contentsOf: url)))
    }

    static func read(_ name: String) throws -> (header: Y4MHeader, frames: [VideoFrameBuffer]) {
        try read(bytes(name))
    }

    static func read(_ bytes: [UInt8]) throws -> (header: Y4MHeader, frames: [VideoFrameBuffer]) {
        var reader = try Y4MReader(bytes: bytes)
        var frames: [VideoFrameBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return (reader.header, frames)
    }

    /// The textbook BT.601 limited-range conversion, written out here from Kr = 0.299 and
    /// Kb = 0.114 (not the library's formula), unclamped.
    static func exactRGB(y: UInt8, u: UInt8, v: UInt8) -> (r: Double, g: Double, b: Double) {
        let (kr, kb) = (0.299, 0.114), kg = 1 - kr - kb
        let luma = (Double(y) - 16) * 255 / 219
        let cb = (Double(u) - 128) * 255 / 224, cr = (Double(v) - 128) * 255 / 224
        return (luma + 2 * (1 - kr) * cr, luma - 2 * (1 - kb) * kb / kg * cb - 2 * (1 - kr) * kr / kg * cr, luma + 2 * (1 - kb) * cb)
    }

    static func convert(_ frame: VideoFrameBuffer, _ converter: FrameConverter) throws -> VideoFrameBuffer {
        var out = try VideoFrameBuffer(format: .bgra, width: frame.width, height: frame.height)
        try frame.withFrame { source in try out.withMutableFrame { try converter.convert(source, into: $0) } }
        return out
    }

    @Test("the files hold what the rig captured", arguments: files)
    func header(file: (name: String, frames: Int)) throws {
        let (header, frames) = try Self.read(file.name)
        #expect(header.width == 240 && header.height == 135)
        #expect(header.colorRange == .limited)
        #expect(header.otherParameters.contains("XWEBCODECS_MATRIX=smpte170m"))
        #expect(frames.count == file.frames)
    }

    @Test("vector = reference bit for bit, every pixel within 0.57 of the exact BT.601 value", arguments: files)
    func exactness(file: (name: String, frames: Int)) throws {
        let (header, frames) = try Self.read(file.name)
        var colours = Set<UInt32>()
        var worst = 0.0
        for frame in frames {
            let fast = try Self.convert(frame, FrameConverter(colorSpace: .bt601Limited))
            let reference = try Self.convert(frame, FrameConverter(colorSpace: .bt601Limited, implementation: .reference))
            #expect(fast.storage == reference.storage)
            let (width, chromaWidth) = (header.width, (header.width + 1) / 2)
            let (u0, v0) = (frame.planeOffset(1), frame.planeOffset(2))
            for y in 0..<header.height {
                for x in 0..<width {
                    let chroma = (y / 2) * chromaWidth + x / 2
                    let exact = Self.exactRGB(y: frame.storage[y * width + x], u: frame.storage[u0 + chroma], v: frame.storage[v0 + chroma])
                    let pixel = 4 * (y * width + x)
                    let (b, g, r, a) = (fast.storage[pixel], fast.storage[pixel + 1], fast.storage[pixel + 2], fast.storage[pixel + 3])
                    #expect(a == 255)
                    for (ours, real) in [(r, exact.r), (g, exact.g), (b, exact.b)] {
                        worst = max(worst, abs(Double(ours) - min(max(real, 0), 255)))
                    }
                    colours.insert(UInt32(b) | UInt32(g) << 8 | UInt32(r) << 16)
                }
            }
        }
        #expect(worst <= 0.57, "\(file.name): off the exact value by \(worst)")
        // Not a vacuous input: a photograph has thousands of colours, the test pattern dozens.
        #expect(colours.count >= (file.name.hasPrefix("astronaut") ? 5000 : 20), "\(colours.count) colours")
    }

    @Test("each frame carries its RTP timestamp; the presentation clock spaces them as RTP did", arguments: files)
    func presentationTimes(file: (name: String, frames: Int)) throws {
        let bytes = try Self.bytes(file.name)
        // The timestamps as written, read straight from the text.
        let written = String(decoding: bytes, as: UTF8.self).components(separatedBy: "FRAME XRTP=").dropFirst().map { UInt32($0.prefix { $0.isNumber })! }
        let frames = try Self.read(bytes).frames
        #expect(frames.map(\.timestamp) == written)
        // Real RTP: not the header's even 30 fps spacing (3 000 ticks).
        #expect(Set(zip(written.dropFirst(), written).map { $0 &- $1 }) != [3_000])
        var clock = PresentationClock()
        let times = frames.map { clock.presentationTime(for: $0.timestamp) }
        #expect(times.map(\.value) == written.map { Int64($0 &- written[0]) })
        #expect(times.map(\.kind) == [.first] + Array(repeating: .regular, count: frames.count - 1))
        #expect(times.allSatisfy { $0.timescale == 90_000 })
    }

    @Test("libyuv converts the same frames within its documented error",
          .enabled(if: LibYUV.shared != nil, "libyuv is not installed (apt-get install libyuv0): comparison not run"), arguments: files)
    func againstLibYUV(file: (name: String, frames: Int)) throws {
        let library = try #require(LibYUV.shared)
        for frame in try Self.read(file.name).frames {
            let ours = try Self.convert(frame, FrameConverter(colorSpace: .bt601Limited))
            var theirs = try VideoFrameBuffer(format: .bgra, width: frame.width, height: frame.height)
            try frame.withFrame { source in try theirs.withMutableFrame { try library.convert(source, into: $0, colorSpace: .bt601Limited) } }
            // libyuv's BT.601 is within 2.6 of exact and ours within 0.57: at most 3 apart.
            let difference = zip(ours.storage, theirs.storage).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(difference <= 3)
        }
    }
}
