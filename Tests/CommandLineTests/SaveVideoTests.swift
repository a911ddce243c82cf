@testable import callscope
import Calls
import CallScopeTesting
import Foundation
import Testing
import VideoFrames

/// `callscope call --save-video`: a stream's frames written as Y4M, a new file per size, read
/// back with the package's Y4M reader byte for byte; the sidecar notes each file.
@Suite struct SaveVideoTests {
    static func frame(width: Int, height: Int, number: Int, seed: Int) throws -> (CallVideoFrame, [UInt8]) {
        let count = VideoFrame.packedCount(format: .i420, width: width, height: height)
        let packed = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + seed) }
        let buffer = try VideoFrameBuffer(format: .i420, width: width, height: height, packed: packed)
        return (CallVideoFrame(frame: RetainedVideoFrame(buffer), captureTimeMicroseconds: Int64(number) * 33_333, number: number), packed)
    }

    @Test func framesRoundTripThroughTheY4MReaderWithAFilePerSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("save-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let saved = SavedVideoStream(directory: directory, label: "subscriber-7", frameRate: 30)
        // Two frames at 8x6, then a layer switch to an odd 5x3, then one NV12 frame (skipped).
        let sent = try [Self.frame(width: 8, height: 6, number: 1, seed: 1), Self.frame(width: 8, height: 6, number: 2, seed: 2),
                        Self.frame(width: 5, height: 3, number: 4, seed: 3)]
        for (frame, _) in sent { saved.renderVideoFrame(frame) }
        let nv12 = try VideoFrameBuffer(format: .nv12, width: 4, height: 4)
        saved.renderVideoFrame(CallVideoFrame(frame: RetainedVideoFrame(nv12), number: 5))
        var stats = VideoDeliveryStats()
        stats.framesReceived = 5
        stats.dropped = [.rendererBusy: 1]
        let summary = try saved.finish(stats: stats)
        #expect(summary == "subscriber-7: 3 frames in 2 file(s), 1 dropped")

        var first = try Y4MReader(path: directory.appendingPathComponent("subscriber-7-1-8x6.y4m").path)
        #expect(first.header.width == 8 && first.header.height == 6 && first.header.frameRate == Y4MFrameRate(numerator: 30, denominator: 1))
        #expect(try first.nextFrame()?.withFrame { $0.packedBytes() } == sent[0].1)
        #expect(try first.nextFrame()?.withFrame { $0.packedBytes() } == sent[1].1)
        #expect(try first.nextFrame() == nil)
        var second = try Y4MReader(path: directory.appendingPathComponent("subscriber-7-2-5x3.y4m").path)
        #expect(try second.nextFrame()?.withFrame { $0.packedBytes() } == sent[2].1)
        #expect(try second.nextFrame() == nil)

        let sidecar = try String(contentsOf: directory.appendingPathComponent("subscriber-7.ndjson"), encoding: .utf8)
        #expect(sidecar.split(separator: "\n") == [
            #"{"file":"subscriber-7-1-8x6.y4m","firstFrame":1,"width":8,"height":6,"rotation":0,"captureTimeMicroseconds":33333}"#,
            #"{"file":"subscriber-7-2-5x3.y4m","firstFrame":4,"width":5,"height":3,"rotation":0,"captureTimeMicroseconds":133332}"#,
            #"{"end":true,"files":2,"framesWritten":3,"framesSkipped":1,"framesReceived":5,"dropped":{"rendererBusy":1}}"#,
        ])
    }

    @Test func anEngineWithoutFramesFailsAtStart() async throws {
        let refusing = FakeMediaEngine()
        refusing.failNext("setVideoFrameSink", with: MediaEngineError(.unsupported, "video frames not yet delivered by this engine"))
        await #expect(throws: SaveVideoFailure.self) { try await CallVideoSaver.checkFrames(from: refusing) }
        #expect(refusing.openPeerConnections.isEmpty)
        let delivering = FakeMediaEngine()
        try await CallVideoSaver.checkFrames(from: delivering)
        #expect(delivering.calls == ["make pc-1", "setVideoFrameSink pc-1 on", "setVideoFrameSink pc-1 off", "close pc-1"])
    }
}
