import CallsChromium
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `callscope call` options the rig's SDK path uses (Rig/README.md): camera size, frame
/// rate and layer caps reach the real encoder, and SIGTERM ends a call early and cleanly (it
/// hangs up and writes `--record` and `--report`).
@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealCallOptionsTests {
    /// A publisher with `--width 640 --height 360 --fps 15 --bitrates 100000,300000,700000` and
    /// `--duration 300`, sent SIGTERM 9 s after it printed `publisher.streamCreated` (its
    /// start-up takes 3–4 s here, longer on a busy machine): it exits 0 well before the duration, and its
    /// recording's last publisher report has the three layers the options ask for: f 640×360,
    /// h 320×180, q 160×90 (three layers below 960×540 only with the field trial the option
    /// adds), at most 16 fps, and f's and q's `targetBitrate` within their 700 k and 100 k caps
    /// (libwebrtc targets a 640×360 f layer's whole cap: 900 k of 900 k in the rig's
    /// two-publisher recordings; the default caps are 1.5 M and 150 k).
    @Test(.timeLimit(.minutes(2)))
    func mediaOptionsReachTheEncoderAndSIGTERMEndsTheCallWithItsRecording() async throws {
        let carol = try await PublishingCall.launch("carol", options: ["--width", "640", "--height", "360", "--fps", "15", "--bitrates", "100000,300000,700000"])
        defer { carol.removeWork() }
        let published = try await Self.waitForLine(containing: "publisher.streamCreated", in: carol.live, within: .seconds(60))
        try await Task.sleep(for: .seconds(9))
        let (code, took) = await carol.terminate()
        progress("carol: published \(published - carol.launched) after the launch, exit \(String(describing: code)) \(took) after SIGTERM")
        #expect(code == 0)
        #expect(took < .seconds(30), "SIGTERM ended the call, not --duration 300")

        let lines = try String(contentsOfFile: carol.record, encoding: .utf8).split(separator: "\n")
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

        // --report: the page of this recording, with carol's sent video in its summary.
        let page = try String(contentsOfFile: carol.report, encoding: .utf8)
        #expect(page.contains(#""peers":["carol.publisher"]"#))
        #expect(page.contains(#""direction":"sending""#) && page.contains(#""peer":"carol.publisher""#))
    }

    /// SIGTERM 0.5 s after the launch, while Chromium is still starting: the signal is kept, the
    /// call finishes its start-up (it publishes), then hangs up at once and writes its
    /// recording, and exits 0 (before, the signal's default action killed it: one CI run sent
    /// the other test's SIGTERM before a slow start-up was over and got no recording).
    @Test(.timeLimit(.minutes(2)))
    func sigtermDuringTheStartUpEndsTheCallCleanlyOnceItHasStarted() async throws {
        let dave = try await PublishingCall.launch("dave")
        defer { dave.removeWork() }
        try await Task.sleep(for: .milliseconds(500))
        let (code, took) = await dave.terminate()
        let live = FileManager.default.contents(atPath: dave.live).map { String(decoding: $0, as: UTF8.self) } ?? ""
        progress("dave: SIGTERM 0.5 s after the launch, exit \(String(describing: code)) \(took) later")
        #expect(code == 0, "exit 0, not killed by the signal: \(live.suffix(500))")
        #expect(took < .seconds(60), "the call ended on the signal, not --duration 300")
        #expect(live.contains("publisher.streamCreated"), "the start-up was finished, then the call ended")
        let header = try String(contentsOfFile: dave.record, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "webrtc-stats-recording", "the recording was written")
    }

    /// `callscope call --publish --subscribe none --duration 300 --format ndjson --record` as
    /// `display` (plus `options`), against a Janus of its own, in a work directory of its own.
    struct PublishingCall {
        let janus: JanusProcess
        let process: ChildProcess
        let work: String
        let launched: ContinuousClock.Instant
        /// The `--record` and `--report` files and the live output.
        var record: String { work + "/call.ndjson" }
        var report: String { work + "/call.html" }
        var live: String { work + "/call.live" }

        static func launch(_ display: String, options: [String] = []) async throws -> PublishingCall {
            let executable = RealRecordReplayTests.executable
            try #require(FileManager.default.isExecutableFile(atPath: executable), "build callscope first (swift build): \(executable)")
            let janus = try await JanusProcess()
            let work = NSTemporaryDirectory() + "callscope-\(display)-call-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let launched = ContinuousClock.now
            let process = try ChildProcess(executable: executable, arguments: [
                "call", "--janus", janus.url.absoluteString, "--room", String(RealCallTests.room), "--display", display,
                "--publish", "--subscribe", "none", "--duration", "300", "--format", "ndjson", "--record", work + "/call.ndjson",
                "--report", work + "/call.html",
                "--chromedriver", RealComponents.chromedriver, "--chromium", RealComponents.chromium,
            ] + options, outputPath: work + "/call.live")
            return PublishingCall(janus: janus, process: process, work: work, launched: launched)
        }

        /// SIGTERM, then its exit code and how long after the signal it came; Janus stopped.
        func terminate() async -> (code: Int32?, took: Duration) {
            let signalled = ContinuousClock.now
            kill(process.pid, SIGTERM)
            let code = await process.exitCode()
            let took = ContinuousClock.now - signalled
            await janus.stop()
            return (code, took)
        }

        func removeWork() { try? FileManager.default.removeItem(atPath: work) }
    }

    /// Polls `path` every 100 ms until it holds `text`; the time it was seen. Bytes, not a
    /// string: the file is being written (a read may end inside a character).
    static func waitForLine(containing text: String, in path: String, within limit: Duration) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + limit
        let wanted = Data(text.utf8)
        while ContinuousClock.now < deadline {
            if let contents = FileManager.default.contents(atPath: path), contents.range(of: wanted) != nil { return ContinuousClock.now }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw RigError("no line with \(text) in \(path) within \(limit)")
    }
}
