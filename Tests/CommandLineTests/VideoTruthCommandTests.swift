@testable import callscope
@testable import Calls
import Foundation
import Observability
import Testing
import VideoFrames

/// `callscope marker-clip` and `call --video-truth`: the options, the check that the clip is a
/// marker clip, and one stream's record from frames handed to the output as an engine would.
@Suite struct VideoTruthCommandTests {
    static func temporary(_ name: String) -> String { NSTemporaryDirectory() + "truth-\(UUID().uuidString)-\(name)" }

    @Test func theCaptureOptionsNeedTheClip() {
        #expect(throws: UsageError.self) { try CallCommand(arguments: ["--janus", "http://127.0.0.1:1/janus", "--video-truth-capture", "/tmp/x"]) }
        #expect(throws: UsageError.self) { try VideoMarkerClipCommand(arguments: ["--width", "961"]) }
        #expect(throws: UsageError.self) { try VideoMarkerClipCommand(arguments: ["-o", "/tmp/x.y4m", "--width", "961"]) }
    }

    @Test func aClipThatIsNotAMarkerClipIsRefused() throws {
        let path = Self.temporary("plain.y4m")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = Y4MHeader(width: 128, height: 72, frameRate: Y4MFrameRate(numerator: 10, denominator: 1))
        let frames = try (0..<3).map { _ in try VideoFrameBuffer(format: .i420, width: 128, height: 72) }
        try Data(Y4MWriter(header: header).encode(frames)).write(to: URL(fileURLWithPath: path))
        #expect(throws: UsageError.self) { try CallVideoTruth(clipPath: path, capture: nil, captureOut: nil) }
        #expect(throws: UsageError.self) { try CallVideoTruth(clipPath: path + ".missing", capture: nil, captureOut: nil) }
    }

    @Test func aStreamsFramesBecomeOneRecordAndThePreviewIsLogged() async throws {
        let clipPath = Self.temporary("marker.y4m"), log = Self.temporary("capture.log")
        defer { for path in [clipPath, log] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try VideoMarkerClipCommand(arguments: ["-o", clipPath, "--width", "256", "--height", "144", "--fps", "1", "--frames", "400"]).run() == .success)
        let truth = try CallVideoTruth(clipPath: clipPath, capture: nil, captureOut: log)
        #expect(truth.clip.frameCount == 400 && truth.clip.width == 256 && truth.clip.frameRate == 1)
        let publisher = CallPublisher(settings: CallPublisherSettings(name: "alice"))
        truth.measure(publisher)
        // Frames 0...9 except 4, then 9 again: 9 new, 1 repeated, 10 sent in the span. The probe
        // unwraps the clip's loop by arrival time, so the clip's loop (400 frames at 1 fps: 400 s)
        // is far longer than any stall of a loaded machine (a 10-frame-per-second, 20 s loop
        // failed twice in CI's full suite, where this test took 71-110 s).
        // Each frame is handed on only once the one before was rendered: on a loaded machine the
        // output's bounded queue would otherwise drop the oldest (as it should), and the counts
        // below are about the probe, not the queue.
        for (sent, index) in [0, 1, 2, 3, 5, 6, 7, 8, 9, 9].enumerated() {
            let frame = try truth.clip.frame(index)
            publisher.videoOutput.receive(EngineVideoFrame(peerConnection: PeerConnectionID("pc-1"), source: .localPreview, frame: RetainedVideoFrame(frame)))
            let waitUntil = ContinuousClock.now + .seconds(10)
            while publisher.videoOutput.stats.framesRendered < sent + 1, ContinuousClock.now < waitUntil { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(publisher.videoOutput.stats.framesRendered == 10)
        let lines = truth.finish(format: .ndjson)
        let record = try #require(lines.first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
        #expect(json["callback"] as? String == "publisher.videoTruth" && json["peer"] as? String == "publisher")
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["newFrames"] as? Int == 9 && data["sent"] as? Int == 10 && data["delivered"] as? Int == 9 && data["repeated"] as? Int == 1)
        let logged = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[0] }
        #expect(logged == ["0", "1", "2", "3", "5", "6", "7", "8", "9", "9"])
    }
}
