import CallsChromium
import Foundation

/// A rig service started for one test (Janus, coturn): the start-up they share. Its own
/// temporary directory (`callscope-NAME-UUID`, kept for its logs), the rig's configuration
/// templates filled in there, ports picked free at run time, the process spawned with its output
/// captured in `NAME.out` there, a poll until it answers (when it does not in time: stopped, and
/// an error naming its directory), and its stop.
final class ServiceProcess: Sendable {
    /// What it is: in progress lines, errors and the names of its directory and output file.
    let name: String
    /// Its configuration and logs.
    let directory: String
    private let process: ChildProcess
    private let grace: Duration

    /// Makes the directory, lets `configure` write the configuration there and give the
    /// arguments, spawns `executable` with them, and polls `answers` every `interval` until it
    /// holds, for at most `timeout`. `address` says where it answers (progress and errors).
    init(_ name: String, executable: String, at address: String, readyWithin timeout: Duration, pollingEvery interval: Duration,
         stopGrace grace: Duration, configure: (_ directory: String) throws -> [String], answers: () async -> Bool) async throws {
        self.name = name
        self.grace = grace
        directory = NSTemporaryDirectory() + "callscope-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = try configure(directory)
        process = try ChildProcess(executable: executable, arguments: arguments, outputPath: directory + "/\(name).out")
        progress("\(name) started at \(address)")
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await answers() {
                progress("\(name) ready")
                return
            }
            do { try await Task.sleep(for: interval) } catch {
                await stop()
                throw error
            }
        }
        await stop()
        throw RigError("\(name) did not answer at \(address) within \(timeout) (log: \(directory))")
    }

    /// SIGTERM, then SIGKILL after the grace it was started with; returns when it has exited.
    func stop() async { await process.stop(grace: grace) }

    /// SIGKILL outright: no goodbye to anyone, as in a crash.
    func kill() async { await process.killAbruptly() }

    // MARK: - Start-up pieces

    /// A TCP port free now; free for UDP too when `udpToo` (coturn serves both on one port).
    static func freePort(udpToo: Bool = false) throws -> UInt16 {
        for _ in 0..<20 {
            if let port = FreePort.tcp(), !udpToo || FreePort.udpIsFree(port) { return port }
        }
        throw RigError(udpToo ? "no port free for both TCP and UDP" : "no free TCP port")
    }

    /// `count` consecutive UDP ports that are all free now, starting at a random offset.
    static func freeUDPRange(count: UInt16) throws -> ClosedRange<UInt16> {
        for _ in 0..<50 {
            let low = UInt16.random(in: 20_000...(60_000 - count))
            let range = low...(low + count - 1)
            if range.allSatisfy(FreePort.udpIsFree) { return range }
        }
        throw RigError("no free UDP range of \(count) ports")
    }

    /// The configuration template `template` with every placeholder replaced, written to `path`.
    static func fill(_ template: URL, _ substitutions: [String: String], to path: String) throws {
        var text = try String(contentsOf: template, encoding: .utf8)
        for (key, value) in substitutions { text = text.replacingOccurrences(of: key, with: value) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// A rig part (Janus, coturn, a network namespace, a call through them) that did not come up
/// or behave as a test needs: what happened, with where to look.
struct RigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
