import CallsChromium
import Foundation
import Testing

/// `callscope call --record` on a real call, replayed with `callscope replay`: the replay is a
/// client like any other (docs/spec/architecture.md), so it must give the callbacks the live run printed.
@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealRecordReplayTests {
    static let statsCallbacks = [
        "publisher.videoNetworkStatsUpdated", "publisher.audioNetworkStatsUpdated", "publisher.mediaLinkStatsUpdated",
        "subscriber.videoNetworkStatsUpdated", "subscriber.audioNetworkStatsUpdated", "subscriber.mediaLinkStatsUpdated",
    ]

    /// The built `callscope` executable (swift test builds it with the tests).
    static var executable: String { RealComponents.repository.appendingPathComponent(".build/debug/callscope").path }

    /// Alice publishes, Bob subscribes, both with `--record` and `--format ndjson`; each
    /// recording replayed must give, for every publisher and subscriber video/audio/mediaLink
    /// callback the live run printed, the same callback: same `t`, `stream` and every leaf of
    /// `data` (the bytes counters, packets, bitrates, transport, sender stats, ...), compared as
    /// sequences per callback name; the replay may have one more at the end, for the last
    /// sample, whose live callback the command stopped before printing. The video and audio
    /// callbacks must carry bytes counters, and at least 5 of each must have been printed.
    @Test(.timeLimit(.minutes(3)))
    func recordedLiveCallReplaysToTheSameCallbacks() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable), "build callscope first (swift build): \(Self.executable)")
        let janus = try await JanusProcess()
        let work = NSTemporaryDirectory() + "callscope-record-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["CALLSCOPE_KEEP"] == nil { try? FileManager.default.removeItem(atPath: work) } else { progress("kept \(work)") } }
        func call(_ name: String, _ extra: [String], seconds: Int) throws -> ChildProcess {
            try ChildProcess(executable: Self.executable, arguments: [
                "call", "--janus", janus.url.absoluteString, "--room", String(RealCallTests.room), "--display", name,
                "--duration", String(seconds), "--format", "ndjson", "--record", "\(work)/\(name).ndjson",
                "--chromedriver", RealComponents.chromedriver, "--chromium", RealComponents.chromium,
            ] + extra, outputPath: "\(work)/\(name).live")
        }
        do {
            progress("record: alice publishes, bob subscribes")
            let alice = try call("alice", ["--publish", "--subscribe", "none"], seconds: 30)
            try await Task.sleep(for: .seconds(6))
            let bob = try call("bob", ["--subscribe", "all"], seconds: 18)
            let bobCode = await bob.exitCode(), aliceCode = await alice.exitCode()
            #expect(aliceCode == 0 && bobCode == 0, "exit codes alice \(String(describing: aliceCode)) bob \(String(describing: bobCode))")
            for name in ["alice", "bob"] {
                let replay = try ChildProcess(executable: Self.executable, arguments: ["replay", "\(work)/\(name).ndjson", "--format", "ndjson"],
                                              outputPath: "\(work)/\(name).replay")
                #expect(await replay.exitCode() == 0, "replay of \(name)'s recording")
                let live = try Self.callbacks(in: "\(work)/\(name).live"), replayed = try Self.callbacks(in: "\(work)/\(name).replay")
                let side = name == "alice" ? "publisher." : "subscriber."
                for callback in Self.statsCallbacks where callback.hasPrefix(side) {
                    let liveSequence = live[callback] ?? [], replaySequence = replayed[callback] ?? []
                    progress("\(name) \(callback): \(liveSequence.count) live, \(replaySequence.count) replayed")
                    #expect(liveSequence.count >= 5, "\(name) printed \(callback) live")
                    if !callback.contains("mediaLink") {
                        #expect(liveSequence.allSatisfy { $0.keys.contains { $0.lowercased().contains("bytes") } }, "\(callback) carries bytes counters")
                    }
                    #expect(replaySequence.count >= liveSequence.count && replaySequence.count <= liveSequence.count + 1,
                            "\(callback): \(liveSequence.count) live, \(replaySequence.count) replayed")
                    if callback == "subscriber.videoNetworkStatsUpdated" {
                        let withSenderStats = liveSequence.filter { $0.keys.contains { $0.hasPrefix("data.senderStats.") } }.count
                        progress("bob: \(withSenderStats) of \(liveSequence.count) video callbacks carry sender stats")
                        #expect(withSenderStats >= liveSequence.count / 2,
                                "Bob received Alice's sender stats (so the recording's sender-stats lines are exercised)")
                    }
                    let mismatch = zip(liveSequence, replaySequence).enumerated().first { $0.element.0 != $0.element.1 }
                    #expect(mismatch == nil, "\(name) \(callback) #\(mismatch?.offset ?? -1): live \(mismatch?.element.0 ?? [:]) replay \(mismatch?.element.1 ?? [:])")
                }
            }
        } catch {
            Issue.record("record/replay scenario failed: \(error)")
        }
        await janus.stop()
    }

    /// Per callback name, each line's `t`, `stream` and every leaf of `data` (by path), as text.
    static func callbacks(in path: String) throws -> [String: [[String: String]]] {
        var result: [String: [[String: String]]] = [:]
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = object["callback"] as? String, statsCallbacks.contains(name) else { continue }
            var fields: [String: String] = ["t": "\(object["t"] ?? "")", "stream": "\(object["stream"] ?? "")"]
            collectLeaves(object["data"], path: "data", into: &fields)
            result[name, default: []].append(fields)
        }
        return result
    }

    static func collectLeaves(_ value: Any?, path: String, into fields: inout [String: String]) {
        if let object = value as? [String: Any] {
            for (key, inner) in object { collectLeaves(inner, path: path + "." + key, into: &fields) }
        } else if let array = value as? [Any] {
            for (index, inner) in array.enumerated() { collectLeaves(inner, path: path + "[\(index)]", into: &fields) }
        } else {
            fields[path] = "\(value ?? "nil")"
        }
    }
}
