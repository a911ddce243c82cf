import Foundation
import Testing
@testable import VideoFrames

/// YUV4MPEG2 reading and writing: headers, round trips, truncation.
@Suite("Y4M")
struct Y4MTests {
    static func frames(count: Int, width: Int, height: Int, seed: UInt64) throws -> [VideoFrameBuffer] {
        var rng = SplitMix64(seed: seed)
        return try (0..<count).map { _ in
            let packed = (0..<VideoFrame.packedCount(format: .i420, width: width, height: height)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            return try VideoFrameBuffer(format: .i420, width: width, height: height, packed: packed)
        }
    }

    static func code(_ body: () throws -> Void) -> VideoFrameError.Code? {
        do { try body() } catch let error as VideoFrameError { return error.code } catch { return nil }
        return nil
    }

    @Test("4:2:0 colourspace tags, or none, are read", arguments: ["", " C420", " C420jpeg", " C420paldv", " C420mpeg2"])
    func supportedTags(tag: String) throws {
        let header = try Y4MHeader.parse(Array("YUV4MPEG2 W4 H2 F25:1\(tag)".utf8))
        #expect(header.width == 4 && header.height == 2 && header.frameRate == Y4MFrameRate(numerator: 25, denominator: 1))
        #expect(header.colorspace == (tag.isEmpty ? nil : String(tag.dropFirst(2))))
    }

    @Test("other layouts are refused clearly", arguments: ["C422", "C444", "Cmono", "C420p10", "C444alpha"])
    func unsupportedTags(tag: String) {
        do {
            _ = try Y4MHeader.parse(Array("YUV4MPEG2 W4 H2 \(tag)".utf8))
            Issue.record("expected an error")
        } catch let error as VideoFrameError {
            #expect(error.code == .unsupportedLayout)
            #expect(error.message.contains(tag))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func malformedHeaders() {
        #expect(Self.code { _ = try Y4MHeader.parse(Array("YUV4MPEG W4 H2".utf8)) } == .invalidHeader)
        #expect(Self.code { _ = try Y4MHeader.parse(Array("YUV4MPEG2 H2".utf8)) } == .invalidHeader)
        #expect(Self.code { _ = try Y4MHeader.parse(Array("YUV4MPEG2 W-4 H2".utf8)) } == .invalidHeader)
        #expect(Self.code { _ = try Y4MHeader.parse(Array("YUV4MPEG2 W4 H2 F30:0".utf8)) } == .invalidHeader)
        #expect(Self.code { _ = try Y4MReader(bytes: []) } == .invalidHeader)
        #expect(Self.code { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W4 H2".utf8)) } == .invalidHeader)
    }

    @Test("unknown parameters are kept and written back")
    func parametersKept() throws {
        let line = "YUV4MPEG2 W6 H4 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=FULL Zfuture"
        let header = try Y4MHeader.parse(Array(line.utf8))
        #expect(header.colorRange == .full)
        #expect(header.otherParameters == ["Ip", "A1:1", "XYSCSS=420MPEG2", "Zfuture"])
        #expect(try Y4MHeader.parse(header.encoded().dropLast()) == header)
    }

    @Test("write then read gives the same frames, odd size, with 90 kHz timestamps")
    func roundTrip() throws {
        let originals = try Self.frames(count: 4, width: 7, height: 5, seed: 1)
        let writer = Y4MWriter(header: Y4MHeader(width: 7, height: 5, frameRate: Y4MFrameRate(numerator: 30000, denominator: 1001)))
        let bytes = try writer.encode(originals)
        var reader = try Y4MReader(bytes: bytes)
        var read: [VideoFrameBuffer] = []
        while let frame = try reader.nextFrame() { read.append(frame) }
        #expect(read.map(\.storage) == originals.map(\.storage))
        #expect(read.map(\.timestamp) == [0, 3003, 6006, 9009])
        #expect(reader.framesRead == 4)
    }

    @Test("a truncated file keeps the frames before the cut and throws a typed error")
    func truncated() throws {
        let originals = try Self.frames(count: 3, width: 8, height: 6, seed: 2)
        let bytes = try Y4MWriter(header: Y4MHeader(width: 8, height: 6)).encode(originals)
        let frameSize = 6 + VideoFrame.packedCount(format: .i420, width: 8, height: 6)
        // Cut inside the third frame's pixels, then inside its FRAME line.
        for cut in [bytes.count - 10, bytes.count - frameSize + 3] {
            var reader = try Y4MReader(bytes: Array(bytes.prefix(cut)))
            var read: [VideoFrameBuffer] = []
            do {
                while let frame = try reader.nextFrame() { read.append(frame) }
                Issue.record("expected a truncation error")
            } catch let error as VideoFrameError {
                #expect(error.code == .truncated)
                #expect(error.frameIndex == 2)
            }
            #expect(read.map(\.storage) == originals.prefix(2).map(\.storage))
        }
        // Cut exactly between frames: a clean end.
        var reader = try Y4MReader(bytes: Array(bytes.prefix(bytes.count - frameSize)))
        var count = 0
        while try reader.nextFrame() != nil { count += 1 }
        #expect(count == 2)
    }

    @Test("a file source, reusing one buffer")
    func fromFile() throws {
        let originals = try Self.frames(count: 3, width: 33, height: 17, seed: 3)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("videoframes-\(UInt32.random(in: 0...UInt32.max)).y4m").path
        let bytes = try Y4MWriter(header: Y4MHeader(width: 33, height: 17, colorRange: .limited)).encode(originals)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try Y4MReader(path: path)
        #expect(reader.header.colorRange == .limited)
        var buffer = try VideoFrameBuffer(format: .i420, width: 33, height: 17)
        var index = 0
        while try reader.readFrame(into: &buffer) {
            #expect(buffer.storage == originals[index].storage)
            index += 1
        }
        #expect(index == 3)
        #expect(Self.code { _ = try Y4MReader(path: path + ".missing") } == .io)
    }

    @Test func writerRefusesOtherFrames() throws {
        let writer = Y4MWriter(header: Y4MHeader(width: 4, height: 4))
        let bgra = try VideoFrameBuffer(format: .bgra, width: 4, height: 4)
        var output: [UInt8] = []
        #expect(Self.code { try bgra.withFrame { try writer.append($0, to: &output) } } == .sizeMismatch)
    }

    @Test("a frame line's XRTP= is the frame's timestamp; other frame parameters are skipped")
    func rtpTimestampParameter() throws {
        // 2x2 I420: 4 + 1 + 1 bytes per frame; 25 fps gives 3 600 ticks per frame without XRTP.
        let frame = [UInt8](repeating: 128, count: 6)
        var stream = Array("YUV4MPEG2 W2 H2 F25:1 C420jpeg\n".utf8)
        for line in ["FRAME XRTP=4294967295", "FRAME Ixyz XRTP=5", "FRAME"] { stream += Array((line + "\n").utf8) + frame }
        var reader = try Y4MReader(bytes: stream)
        #expect(try reader.nextFrame()?.timestamp == 4_294_967_295)
        #expect(try reader.nextFrame()?.timestamp == 5)
        #expect(try reader.nextFrame()?.timestamp == 2 * 3_600)
        #expect(try reader.nextFrame() == nil)
    }

    @Test("a malformed XRTP= is refused, naming the frame", arguments: ["XRTP=", "XRTP=-1", "XRTP=4294967296", "XRTP=12a"])
    func malformedRTPTimestamp(parameter: String) throws {
        let stream = Array("YUV4MPEG2 W2 H2 F25:1\nFRAME\n".utf8) + [UInt8](repeating: 0, count: 6) + Array("FRAME \(parameter)\n".utf8) + [UInt8](repeating: 0, count: 6)
        var reader = try Y4MReader(bytes: stream)
        _ = try reader.nextFrame()
        do {
            _ = try reader.nextFrame()
            Issue.record("expected an error for \(parameter)")
        } catch let error as VideoFrameError {
            #expect(error.code == .invalidHeader && error.frameIndex == 1 && error.message.contains("XRTP"))
        }
    }

    @Test("timestamps wrap at 2³² like RTP")
    func timestampWrap() {
        let header = Y4MHeader(width: 2, height: 2, frameRate: Y4MFrameRate(numerator: 1, denominator: 1))
        #expect(header.timestamp(ofFrame: 47_722) == UInt32(truncatingIfNeeded: 47_722 * 90_000))
    }
}
