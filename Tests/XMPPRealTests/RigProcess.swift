import ConnectivityProbe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server started for one test (Prosody, coturn) in its own temporary directory (kept for its
/// logs), its configuration template from Rig/prosody filled in there, stopped with SIGTERM.
final class RigProcess: @unchecked Sendable {
    // @unchecked: `process` is set in init and only read after.
    let name: String
    let directory: String
    private let process: Process

    /// Makes the directory, fills `template` (Rig/prosody/NAME) with `substitutions` into it and
    /// starts `executable` with `arguments(configurationPath)`.
    init(_ name: String, executable: String, template: String, substitutions: [String: String], arguments: (String) -> [String]) throws {
        self.name = name
        directory = NSTemporaryDirectory() + "callscope-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        var text = try String(contentsOf: Self.repository.appendingPathComponent("Rig/prosody/\(template)"), encoding: .utf8)
        for (key, value) in substitutions.merging(["@RUN_DIR@": directory], uniquingKeysWith: { first, _ in first }) {
            text = text.replacingOccurrences(of: key, with: value)
        }
        let configuration = directory + "/" + template
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments(configuration)
        guard FileManager.default.createFile(atPath: directory + "/\(name).out", contents: nil),
              let output = FileHandle(forWritingAtPath: directory + "/\(name).out") else { throw RigFailure("cannot write \(directory)/\(name).out") }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// The configuration file written at start.
    func configurationPath(_ template: String) -> String { directory + "/" + template }

    /// SIGTERM, then SIGKILL after 3 s; returns when it has exited.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<60 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The repository root (from this file's path).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A TCP port free now (bound to 0 and released); `udpToo` also checks UDP.
    static func freePort(udpToo: Bool = false) -> UInt16 {
        for _ in 0..<50 {
            let port = UInt16.random(in: 20_000...60_000)
            if isFree(port, stream: true), !udpToo || isFree(port, stream: false) { return port }
        }
        return 0
    }

    private static func isFree(_ port: UInt16, stream: Bool) -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(stream ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, stream ? SOCK_STREAM : SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Polls `condition` every 100 ms for at most `timeout`.
    static func waitUntil(_ timeout: Duration, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

/// A rig part that did not come up: what happened, with where to look.
struct RigFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
