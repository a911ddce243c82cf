@testable import callscope
import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// `callscope call --report FILE`: the page `callscope report` writes for the call's own
/// recording, made from the recording the call keeps in memory.
extension CommandLineTests {
    /// A call's in-memory recording (here: every item of a real rig recording, written through
    /// the recorder as a live call writes them) gives, byte for byte, the page `callscope report`
    /// writes for the same recording as a file.
    @Test func callReportIsTheReportOfTheCallsRecording() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("call-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("call.html").path
        let command = try CallCommand(arguments: ["--janus", "http://127.0.0.1:8088/janus", "--display", "bob", "--report", target])
        #expect(command.report == target)

        let recorder = try CallRecorder(path: nil, display: "bob")
        let source = try Data(contentsOf: Synthetic.repositoryRoot().appendingPathComponent("Recordings/both-sides.ndjson.gz"))
        let timeline = try StatsTimeline.read([UInt8](source))
        for item in timeline.items { recorder.writer.write(item) }
        let recording = try recorder.finish(browser: "Chromium 1", sfu: "janus 1.1.2", intervalMilliseconds: 1000)
        try command.writeReport(of: recording)
        let page = try String(contentsOfFile: target, encoding: .utf8)
        #expect(page.contains("<title>CallScope report — callscope call bob</title>"))

        // The same recording as a file, through `callscope report`.
        let file = directory.appendingPathComponent("callscope call bob").path
        try Data(recording).write(to: URL(fileURLWithPath: file))
        let expected = directory.appendingPathComponent("expected.html").path
        let run = try callscope("report", file, "-o", expected)
        #expect(run.status == 0, "\(run.errors)")
        let expectedPage = try String(contentsOfFile: expected, encoding: .utf8)
        #expect(page == expectedPage)
        #expect(page.contains(#""peers":["publisher","subscriber"]"#), "the recording's peers are in the page's data")
    }

    /// A report that cannot be written is a usage error before the call starts (no browser).
    @Test func callReportToAnUnwritablePathFailsAtOnce() throws {
        let run = try callscope("call", "--janus", "http://127.0.0.1:9/janus", "--report", "/nonexistent-\(UUID().uuidString)/call.html")
        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("callscope call: --report: cannot create /nonexistent-"), "\(run.errors)")
    }
}
