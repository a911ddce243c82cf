import Foundation
import Testing
@testable import VideoFrames

/// Received-video truth, the marker (issue 22 item 6): a clip frame's index read back at the
/// sizes a simulcast receiver sees, and everything else an unreadable marker, counted.
@Suite("Frame marker")
struct FrameMarkerTests {
    /// One clip for the suite: its texture takes a moment to compute.
    static let clip = try! MarkerClip(width: 960, height: 540, frameRate: 15, frameCount: 300)

    @Test("CRC-16/CCITT-FALSE of \"123456789\" is 0x29B1 (the catalogue's check value)")
    func checksumKnownAnswer() {
        let crc = Array("123456789".utf8).reduce(UInt16(0xFFFF)) { FrameMarker.crc16($0, $1) }
        #expect(crc == 0x29B1)
    }

    @Test("the index is read back at the layers' sizes and at ratios that are not whole",
          arguments: [(960, 540), (480, 270), (240, 135), (640, 360), (320, 180), (720, 405), (241, 137)])
    func roundTrip(width: Int, height: Int) throws {
        for index in [0, 1, 77, 255, 256, 299] {
            let source = try Self.clip.frame(index)
            let received = width == 960 ? source : try source.withFrame { try BoxScaler.scaled($0, width: width, height: height) }
            #expect(received.withFrame { FrameMarker.read($0) } == .index(index), "index \(index) at \(width)x\(height)")
        }
    }

    @Test("the picture moves enough that a reference one frame off would show: PSNR below 30 dB")
    func neighboursDiffer() throws {
        for (index, size) in [(10, (960, 540)), (75, (240, 135))] {
            func frame(_ at: Int) throws -> VideoFrameBuffer {
                let full = try Self.clip.frame(at)
                return size.0 == 960 ? full : try full.withFrame { try BoxScaler.scaled($0, width: size.0, height: size.1) }
            }
            let (this, next) = (try frame(index), try frame(index + 1))
            let psnr = try this.withFrame { a in try next.withFrame { try PeakSignalToNoise.measure(a, against: $0) } }
            #expect(psnr.y < 30, "frame \(index) against \(index + 1) at \(size): \(psnr.y) dB")
        }
    }

    @Test("an index drawn into an NV12 frame reads back; the largest index too")
    func nv12AndLargest() throws {
        var frame = try VideoFrameBuffer(format: .nv12, width: 320, height: 180)
        try frame.withMutableFrame { try FrameMarker.draw(index: FrameMarker.maximumIndex, into: $0) }
        #expect(frame.withFrame { FrameMarker.read($0) } == .index(0xFFFF))
    }

    @Test("coding noise of ±40 on every pixel leaves the index readable")
    func noise() throws {
        var frame = try Self.clip.frame(123).withFrame { try BoxScaler.scaled($0, width: 240, height: 135) }
        var generator = SplitMix64(seed: 22)
        frame.withUnsafeMutableBytes { bytes in
            for offset in 0..<(240 * 135) {
                bytes[offset] = UInt8(max(0, min(255, Int(bytes[offset]) + Int.random(in: -40...40, using: &generator))))
            }
        }
        #expect(frame.withFrame { FrameMarker.read($0) } == .index(123))
    }

    @Test("no marker, a damaged checksum, a tiny frame and BGRA are unreadable, never guessed")
    func unreadable() throws {
        let grey = try VideoFrameBuffer(format: .i420, width: 320, height: 180, packed: [UInt8](repeating: 128, count: 320 * 180 * 3 / 2))
        #expect(grey.withFrame { FrameMarker.read($0) } == .unreadable(.ambiguousCell))

        // The last checksum cell flipped to the other colour.
        var damaged = try Self.clip.frame(42)
        damaged.withMutableFrame { frame in
            let cell = FrameMarker.cellBounds(row: 1, column: 15, width: 960, height: 540)
            let value: UInt8 = frame.readOnly.plane(0).bytes[cell.y.lowerBound * frame.plane(0).stride + cell.x.lowerBound] > 128 ? 16 : 235
            for y in cell.y { for x in cell.x { frame.plane(0).bytes[y * frame.plane(0).stride + x] = value } }
        }
        #expect(damaged.withFrame { FrameMarker.read($0) } == .unreadable(.checksumMismatch))

        let tiny = try VideoFrameBuffer(format: .i420, width: 16, height: 16)
        #expect(tiny.withFrame { FrameMarker.read($0) } == .unreadable(.tooSmall))
        let bgra = try VideoFrameBuffer(format: .bgra, width: 320, height: 180)
        #expect(bgra.withFrame { FrameMarker.read($0) } == .unreadable(.unsupportedFormat))

        var timeline = ReceivedVideoTimeline(clipFrameCount: 300, frameRate: 15)
        for (time, frame) in [grey, damaged, tiny, bgra, try Self.clip.frame(7)].enumerated() {
            _ = frame.withFrame { timeline.record(FrameMarker.read($0), at: Double(time), width: $0.width, height: $0.height) }
        }
        #expect(timeline.unreadable == [.ambiguousCell: 1, .checksumMismatch: 1, .tooSmall: 1, .unsupportedFormat: 1])
        #expect(timeline.newFrames.map(\.index) == [7] && timeline.framesObserved == 5)
    }

    @Test("bad input to the drawing is a typed error")
    func drawErrors() throws {
        var frame = try VideoFrameBuffer(format: .i420, width: 320, height: 180)
        for index in [-1, FrameMarker.maximumIndex + 1] {
            #expect(throws: VideoFrameError.self) { try frame.withMutableFrame { try FrameMarker.draw(index: index, into: $0) } }
        }
        var small = try VideoFrameBuffer(format: .i420, width: 30, height: 10)
        #expect(throws: VideoFrameError.self) { try small.withMutableFrame { try FrameMarker.draw(index: 1, into: $0) } }
        #expect(throws: VideoFrameError.self) { try MarkerClip(width: 961, height: 540, frameRate: 15, frameCount: 10) }
        #expect(throws: VideoFrameError.self) { try MarkerClip(width: 960, height: 540, frameRate: 15, frameCount: 70_000) }
    }

    @Test("a written clip reads back frame by frame with its markers, and frames move")
    func clipFile() throws {
        let clip = try MarkerClip(width: 256, height: 144, frameRate: 10, frameCount: 5)
        let path = NSTemporaryDirectory() + "marker-\(UUID().uuidString).y4m"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try clip.write(toPath: path)
        var reader = try Y4MReader(path: path)
        #expect(reader.header.width == 256 && reader.header.height == 144 && reader.header.frameRate == Y4MFrameRate(numerator: 10, denominator: 1))
        var read: [VideoFrameBuffer] = []
        while let frame = try reader.nextFrame() { read.append(frame) }
        #expect(read.map { $0.withFrame { FrameMarker.read($0) } } == (0..<5).map { .index($0) })
        #expect(read.map(\.storage) == (try (0..<5).map { try clip.frame($0).storage }), "the file holds what frame(_:) makes")
        // Below the marker rows the picture changes from frame to frame (the pan and the disc).
        let below = 2 * 144 / 9 + 1
        #expect(read[0].storage[(below * 256)..<(144 * 256)] != read[1].storage[(below * 256)..<(144 * 256)])
        #expect(try clip.frame(5).storage == clip.frame(0).storage, "the clip repeats after frameCount frames")
    }
}
