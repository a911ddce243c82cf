import CallsChromium
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `callscope call` options the rig's SDK path uses (Rig/README.md): camera size, frame
/// rate and layer caps reach the real encoder, and SIGTERM ends a call early and cleanly (it
/// hangs up and writes `--record`).
@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealCallOptionsTests {
    /// A publisher with `--width 640 --height 360 --fps 15 --bitrates 100000,300000,700000` and
    /// `--duration 300`, sent SIGTERM after 12 s: it exits 0 well before the duration, and its
    /// recording's last publisher report has the three layers the options ask for: f 640×360,
    /// h 320×180, q 160×90 (three layers below 960×540 only with the field trial the option
    /// adds), at most 16 fps, and f's and q's `targetBitrate` within their 700 k and 100 k caps
    /// (libwebrtc targets a 640×360 f layer's whole cap: 900 k of 900 k in the rig's
    /// two-publisher recordings; the default caps are 1.5 M and 150 k).
    @Test(.timeLimit(.minutes(2)))
    func mediaOptionsReachTheEncoderAndSIGTERMEndsTheCallWithItsRecording() async throws {
        let executable = RealRecordReplayTests.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build callscope first (swift build): \(executable)")
        let janus = try await JanusProcess()
        let work = NSTemporaryDirectory() + "callscope-options-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let record = work + "/carol.ndjson"
        let started = ContinuousClock.now
        let carol = try ChildProcess(executable: executable, arguments: [
            "call", "--janus", janus.url.absoluteString, "--room", String(RealCallTests.room), "--display", "carol",
            "--publish", "--subscribe", "none", "--duration", "300", "--format", "ndjson", "--record", record,
            "--width", "640", "--height", "360", "--fps", "15", "--bitrates", "100000,300000,700000",
            "--chromedriver", RealComponents.chromedriver, "--chromium", RealComponents.chromium,
        ], outputPath: work + "/carol.live")
        try await Task.sleep(for: .seconds(12))
        kill(carol.pid, SIGTERM)
        let code = await carol.exitCode()
        let took = ContinuousClock.now - started
        await janus.stop()
        progress("carol: exit \(String(describing: code)) after \(took) (SIGTERM at 12 s)")
        #expect(code == 0)
        #expect(took < .seconds(60), "SIGTERM ended the call, not --duration 300")

        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.first?["format"] as? String == "webrtc-stats-recording")
        let reports = objects.filter { $0["peer"] as? String == "carol.publisher" }.compactMap { $0["report"] as? [[String: Any]] }
        progress("carol: \(reports.count) publisher reports recorded")
        let last = try #require(reports.last, "publisher reports in the recording")
        var layers: [String: [String: Any]] = [:]
        for entry in last where entry["type"] as? String == "outbound-rtp" && entry["kind"] as? String == "video" {
            if let rid = entry["rid"] as? String { layers[rid] = entry }
        }
        func size(_ rid: String) -> String { "\(layers[rid]?["frameWidth"] ?? "-")x\(layers[rid]?["frameHeight"] ?? "-")" }
        progress("carol layers: f \(size("f")) h \(size("h")) q \(size("q")), f target \(layers["f"]?["targetBitrate"] ?? "-"), f fps \(layers["f"]?["framesPerSecond"] ?? "-")")
        #expect(size("f") == "640x360")
        #expect(size("h") == "320x180")
        #expect(size("q") == "160x90")
        let fps = try #require(layers["f"]?["framesPerSecond"] as? Double)
        #expect(fps <= 16)
        let target = try #require(layers["f"]?["targetBitrate"] as? Double)
        #expect(target > 0 && target <= 700_000)
        let quarterTarget = try #require(layers["q"]?["targetBitrate"] as? Double)
        #expect(quarterTarget > 0 && quarterTarget <= 100_000)
    }
}
