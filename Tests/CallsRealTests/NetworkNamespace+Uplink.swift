import Foundation

/// The uplink of whoever runs in the test namespace, and its processes.
extension NetworkNamespace {
    static let uplinkBlackoutComment = "csrig-calls-uplink"

    private static func uplinkRule(_ operation: String) -> [String] {
        inside(["/usr/sbin/iptables", "-w", "5", operation, "OUTPUT", "-o", innerInterface,
                "-m", "comment", "--comment", uplinkBlackoutComment, "-j", "DROP"])
    }

    /// Drops everything leaving the namespace: its client's uplink dies while its downlink still
    /// works. (A DROP in the sender's own OUTPUT chain makes `sendto()` fail, and Chromium sends
    /// again: a partial drop there is less loss than asked for, a total one is still total.)
    func startUplinkBlackout() async throws { try await Self.run(Self.uplinkRule("-I")) }

    /// Ends the uplink blackout.
    func endUplinkBlackout() async throws { try await Self.run(Self.uplinkRule("-D")) }

    /// Kills every process running in the namespace with SIGKILL (the test's own Chromium there:
    /// nothing else runs in `csrig-calls`), as a crash: no goodbye to anyone. Returns how many.
    func killEverythingInside() async throws -> Int {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "pids", Self.name]
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let pids = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
        for pid in pids { kill(pid, SIGKILL) }
        return pids.count
    }
}
