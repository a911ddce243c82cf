import CallsChromium
import Foundation

/// A network namespace for one real test, like the rig's (Rig/callscope_rig/netlab.py): `csrig-calls`
/// joined to the root namespace by a veth pair (`csrig-calls0` 10.201.3.1 in the root namespace,
/// `csrig-calls1` 10.201.3.2 inside), a route to 10.201.0.0/16 only. The `csrig-` prefix makes
/// `Rig/record.py --cleanup-only` remove it too; tests using it run under the rig lock.
struct NetworkNamespace: Sendable {
    static let name = "csrig-calls"
    static let rootInterface = "csrig-calls0"
    static let innerInterface = "csrig-calls1"
    static let rootAddress = "10.201.3.1"
    static let innerAddress = "10.201.3.2"
    static let blackoutComment = "csrig-calls-blackout"

    /// Whether namespace tests run: `CALLSCOPE_REAL_NETNS=1` (Scripts/test.sh sets it, under
    /// the rig lock), as root, with `ip` and `iptables`.
    static var enabled: Bool {
        RealComponents.enabled && ProcessInfo.processInfo.environment["CALLSCOPE_REAL_NETNS"] == "1" && getuid() == 0
            && ["/usr/sbin/ip", "/usr/sbin/iptables"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a command to its end; throws when it fails.
    static func run(_ arguments: [String]) async throws {
        let process = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()))
        let code = await process.exitCode()
        guard code == 0 else { throw RigError("\(arguments.joined(separator: " ")) failed (\(code.map(String.init) ?? "signal"))") }
    }

    static func inside(_ arguments: [String]) -> [String] { ["/usr/sbin/ip", "netns", "exec", name] + arguments }

    /// Creates the namespace (removing a stale one first).
    static func create() async throws -> NetworkNamespace {
        await remove()
        let ip = "/usr/sbin/ip"
        try await run([ip, "netns", "add", name])
        try await run([ip, "link", "add", rootInterface, "type", "veth", "peer", "name", innerInterface])
        try await run([ip, "link", "set", innerInterface, "netns", name])
        try await run([ip, "addr", "add", rootAddress + "/24", "dev", rootInterface])
        try await run([ip, "link", "set", rootInterface, "up"])
        try await run(inside([ip, "addr", "add", innerAddress + "/24", "dev", innerInterface]))
        try await run(inside([ip, "link", "set", innerInterface, "up"]))
        try await run(inside([ip, "link", "set", "lo", "up"]))
        try await run(inside([ip, "route", "add", "10.201.0.0/16", "via", rootAddress]))
        return NetworkNamespace()
    }

    /// Removes the namespace and its veth (idempotent).
    static func remove() async {
        try? await run(["/usr/sbin/ip", "link", "del", rootInterface])
        try? await run(["/usr/sbin/ip", "netns", "del", name])
    }

    /// Drops everything arriving in the namespace (the subscriber's downlink), as the rig's
    /// `blackout` on `subscriber-downlink` does: an INPUT DROP at the receiving end.
    func startBlackout() async throws {
        try await Self.run(Self.inside(["/usr/sbin/iptables", "-w", "5", "-I", "INPUT", "-i", Self.innerInterface,
                                        "-m", "comment", "--comment", Self.blackoutComment, "-j", "DROP"]))
    }

    /// Ends the blackout.
    func endBlackout() async throws {
        try await Self.run(Self.inside(["/usr/sbin/iptables", "-w", "5", "-D", "INPUT", "-i", Self.innerInterface,
                                        "-m", "comment", "--comment", Self.blackoutComment, "-j", "DROP"]))
    }

    /// A Chromium launcher that runs Chromium inside the namespace (chromedriver stays outside
    /// and talks to it over a pipe).
    func chromiumWrapper(in directory: String) throws -> String {
        let path = directory + "/chromium-in-\(Self.name).sh"
        try "#!/bin/sh\nexec /usr/sbin/ip netns exec \(Self.name) \(RealComponents.chromium) \"$@\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }
}
