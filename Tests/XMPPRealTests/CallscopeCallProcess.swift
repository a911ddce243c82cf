import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One `callscope call … --format ndjson` process of the built binary, its output in files
/// (a pipe could fill up while the test waits), and what the test reads from that output.
final class CallscopeCallProcess: @unchecked Sendable {
    // @unchecked: `process` is set in init and afterwards only asked whether it runs, waited
    // for or signalled, which Process allows from any thread; `exitedAt` only under `lock`.
    private let process = Process()
    private let lock = NSLock()
    private var exitedAt: Double?
    private let directory: URL
    /// When the process was started (Unix ms, as the ndjson lines' `t`).
    let launchedAt: Double
    private let output: URL
    private let errors: URL

    /// Starts `callscope` with `arguments` and the XMPP password in `CALLSCOPE_XMPP_PASSWORD`.
    init(arguments: [String], password: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("callscope-call-xmpp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        output = directory.appendingPathComponent("stdout.ndjson")
        errors = directory.appendingPathComponent("stderr.txt")
        guard FileManager.default.createFile(atPath: output.path, contents: nil),
              FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw RigFailure("cannot create the output files in \(directory.path)") }
        process.executableURL = URL(fileURLWithPath: RealCallCommandXMPPTests.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CALLSCOPE_XMPP_PASSWORD"] = password
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        launchedAt = Date().timeIntervalSince1970 * 1000
        process.terminationHandler = { [lock] _ in
            let now = Date().timeIntervalSince1970 * 1000
            lock.withLock { self.exitedAt = now }
        }
        try process.run()
    }

    /// What one run printed.
    struct Result {
        /// The exit status; -1 when it had to be killed.
        let status: Int32
        /// Seconds from the start to the exit.
        let ranFor: Double
        /// Every stdout line that is a JSON object.
        let lines: [[String: Any]]
        let standardError: String

        /// Seconds from the process's start to the first line with `callback`.
        func secondsTo(_ callback: String, from launchedAt: Double) -> String {
            guard let t = lines.first(where: { $0["callback"] as? String == callback })?["t"] as? Double else { return "never" }
            return String(format: "%.2f s", (t - launchedAt) / 1000)
        }

        /// The session's own connection id (`session.didConnect`).
        var connectionID: String? {
            lines.first { $0["callback"] as? String == "session.didConnect" }.flatMap { ($0["data"] as? [String: Any])?["connectionId"] as? String }
        }

        /// The subscriber's `videoBytesReceived`, in order.
        var videoBytesReceived: [UInt64] {
            lines.filter { $0["callback"] as? String == "subscriber.videoNetworkStatsUpdated" }
                .compactMap { (($0["data"] as? [String: Any])?["videoBytesReceived"] as? NSNumber)?.uint64Value }
        }

        /// Each `publisher.mediaLinkStatsUpdated`'s elements' `connectionId`s.
        var publisherLinkConnections: [[String]] {
            lines.filter { $0["callback"] as? String == "publisher.mediaLinkStatsUpdated" }
                .map { (($0["data"] as? [[String: Any]]) ?? []).map { $0["connectionId"] as? String ?? "" } }
        }
    }

    /// Waits for the process to end (stopped at `deadline`) and reads its output.
    func finish(by deadline: ContinuousClock.Instant) async -> Result {
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        let killed = process.isRunning
        if killed { await stop() }
        process.waitUntilExit()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        return Result(status: killed ? -1 : process.terminationStatus, ranFor: ((lock.withLock { exitedAt } ?? Date().timeIntervalSince1970 * 1000) - launchedAt) / 1000, lines: lines,
                      standardError: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    /// Ends the process if it still runs: SIGTERM (it hangs up and closes its browser), SIGKILL
    /// 5 s later.
    func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Removes the output files (after ``finish(by:)`` read them).
    func removeOutput() {
        try? FileManager.default.removeItem(at: directory)
    }
}
