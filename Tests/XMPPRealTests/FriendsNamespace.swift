import CallScopeTestSupport
import Connectivity
import ConnectivityProbe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The network namespace of the friend-connection tests, like the rig's (`csrig-` prefix, so
/// `Rig/record.py --cleanup-only` removes it too): `csrig-friends` joined to the root namespace
/// by a veth pair (`csrig-fr0` 10.201.5.1 outside, `csrig-fr1` 10.201.5.2 inside). Bob's
/// Chromium and his discoverability probes run inside; coturn listens on the root side, where
/// Alice's Chromium reaches it too. Tests using it run under the rig lock.
struct FriendsNamespace: Sendable {
    static let name = "csrig-friends"
    static let rootInterface = "csrig-fr0"
    static let innerInterface = "csrig-fr1"
    static let rootAddress = "10.201.5.1"
    static let innerAddress = "10.201.5.2"
    static let ruleComment = "csrig-friends-rule"

    /// Whether the namespace tests run: `CALLSCOPE_REAL=1` and `CALLSCOPE_REAL_NETNS=1`, as
    /// root, with `ip`, `iptables`, Chromium and chromedriver.
    static var enabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["CALLSCOPE_REAL"] == "1" && environment["CALLSCOPE_REAL_NETNS"] == "1" && getuid() == 0
            && ["/usr/sbin/ip", "/usr/sbin/iptables", "/usr/bin/chromedriver", "/usr/lib/chromium/chromium"].allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    /// Runs a command to its end; throws when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw RigFailure("\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(text)") }
        return text
    }

    static func inside(_ arguments: [String]) -> [String] { ["/usr/sbin/ip", "netns", "exec", name] + arguments }

    /// Creates the namespace (removing a stale one first).
    static func create() throws -> FriendsNamespace {
        remove()
        let ip = "/usr/sbin/ip"
        try run([ip, "netns", "add", name])
        try run([ip, "link", "add", rootInterface, "type", "veth", "peer", "name", innerInterface])
        try run([ip, "link", "set", innerInterface, "netns", name])
        try run([ip, "addr", "add", rootAddress + "/24", "dev", rootInterface])
        try run([ip, "link", "set", rootInterface, "up"])
        try run(inside([ip, "addr", "add", innerAddress + "/24", "dev", innerInterface]))
        try run(inside([ip, "link", "set", innerInterface, "up"]))
        try run(inside([ip, "link", "set", "lo", "up"]))
        return FriendsNamespace()
    }

    /// Removes the namespace and its veth (idempotent).
    static func remove() {
        _ = try? run(["/usr/sbin/ip", "link", "del", rootInterface])
        _ = try? run(["/usr/sbin/ip", "netns", "del", name])
    }

    /// What arrives in the namespace.
    enum Filter: Equatable {
        /// Everything passes.
        case open
        /// UDP only from coturn's port (its relayed traffic and STUN answers): the peers' direct UDP is dropped.
        case udpOnlyFromRelay(port: UInt16)
        /// No UDP at all (TCP passes).
        case noUDP
        /// Nothing.
        case nothing
    }

    /// Replaces the namespace's INPUT rules with `filter`'s.
    func apply(_ filter: Filter) throws {
        let iptables = Self.inside(["/usr/sbin/iptables", "-w", "5"])
        try Self.run(iptables + ["-F", "INPUT"])
        let base = iptables + ["-A", "INPUT", "-i", Self.innerInterface, "-m", "comment", "--comment", Self.ruleComment]
        switch filter {
        case .open:
            break
        case .udpOnlyFromRelay(let port):
            try Self.run(iptables + ["-A", "INPUT", "-i", Self.innerInterface, "-p", "udp", "!", "--sport", "\(port)",
                                     "-m", "comment", "--comment", Self.ruleComment, "-j", "DROP"])
        case .noUDP:
            try Self.run(base + ["-p", "udp", "-j", "DROP"])
        case .nothing:
            try Self.run(base + ["-j", "DROP"])
        }
    }

    /// A Chromium launcher that runs Chromium inside the namespace (chromedriver stays outside).
    func chromiumWrapper(in directory: String) throws -> String {
        let path = directory + "/chromium-in-\(Self.name).sh"
        try "#!/bin/sh\nexec /usr/sbin/ip netns exec \(Self.name) /usr/lib/chromium/chromium \"$@\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }
}

/// Bob's discoverability probes, run from inside the namespace: each probe on a thread of its own
/// that first joins the namespace with `setns(2)` (which moves only that thread) and ends with
/// the probe. It reports no network changes (the test process's interfaces are not Bob's).
struct FriendsNamespaceProber: DiscoverabilityProbing {
    let prober: DiscoverabilityProber

    var tcpRelayConfigured: Bool { prober.tcpRelayConfigured }

    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
        await NetworkNamespaceThread.run(in: "/var/run/netns/\(FriendsNamespace.name)") { [prober] in prober.run(probe) }
            ?? DiscoverabilityProbeResult(probe: probe, succeeded: false, elapsed: .zero, detail: "could not join \(FriendsNamespace.name)")
    }
}
