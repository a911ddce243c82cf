import CallsChromium
import Connectivity
import ConnectivityProbe
import Foundation

/// A coturn started for one test with the repository's configuration (Rig/coturn/turnserver.conf,
/// placeholders filled in): listening on the root side of the test's network namespace
/// (`NetworkNamespace.rootAddress`, reachable from inside it), a free port for STUN/TURN over
/// UDP and TCP, a free relay port range on the same address, one static user.
final class CoturnProcess: Sendable {
    static let turnserver = "/usr/bin/turnserver"
    static let realm = "callscope.test"
    static let user = "callscope"
    static let password = "relay-\(UInt32.random(in: 0...UInt32.max))"

    /// Whether coturn is installed.
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: turnserver) }

    let address: String
    let port: UInt16
    let directory: String
    private let process: ChildProcess

    /// `turn:ADDRESS:PORT?transport=udp|tcp`.
    func url(transport: String) -> String { "turn:\(address):\(port)?transport=\(transport)" }
    /// STUN and TURN on the same port.
    var endpoint: ProbeEndpoint { ProbeEndpoint(host: address, port: port) }
    var credentials: STUNCredentials { STUNCredentials(username: Self.user, password: Self.password) }

    /// Starts coturn on `address` and waits until it answers a STUN binding (from here).
    init(address: String = NetworkNamespace.rootAddress) async throws {
        self.address = address
        directory = NSTemporaryDirectory() + "callscope-coturn-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var chosen: UInt16?
        for _ in 0..<20 {
            if let candidate = FreePort.tcp(), FreePort.udpIsFree(candidate) { chosen = candidate; break }
        }
        guard let port = chosen else { throw JanusProcessError("no port free for both TCP and UDP") }
        self.port = port
        let relays = try Self.freeUDPRange(count: 40)
        let substitutions = ["@LISTEN_IP@": address, "@PORT@": "\(port)", "@RELAY_IP@": address,
                             "@MIN_PORT@": "\(relays.lowerBound)", "@MAX_PORT@": "\(relays.upperBound)",
                             "@REALM@": Self.realm, "@USER@": Self.user, "@PASSWORD@": Self.password, "@RUN_DIR@": directory]
        var text = try String(contentsOf: RealComponents.repository.appendingPathComponent("Rig/coturn/turnserver.conf"), encoding: .utf8)
        for (key, value) in substitutions { text = text.replacingOccurrences(of: key, with: value) }
        let configuration = directory + "/turnserver.conf"
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        process = try ChildProcess(executable: Self.turnserver, arguments: ["-c", configuration], outputPath: directory + "/turnserver.out")
        progress("coturn started at \(address):\(port) (relays \(relays))")
        let prober = DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: address, port: port),
            udpSchedule: STUNRetransmissionSchedule(initialRTO: .milliseconds(100), transmissions: 2, finalWaitMultiplier: 2)))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if await prober.probe(.udpBinding).succeeded {
                progress("coturn ready")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await stop()
        throw JanusProcessError("coturn did not answer a STUN binding at \(address):\(port) within 10 s (log: \(directory))")
    }

    func stop() async { await process.stop(grace: .seconds(3)) }

    /// `count` consecutive UDP ports that are all free now, starting at a random offset.
    private static func freeUDPRange(count: UInt16) throws -> ClosedRange<UInt16> {
        for _ in 0..<50 {
            let low = UInt16.random(in: 20_000...(60_000 - count))
            let range = low...(low + count - 1)
            if range.allSatisfy(FreePort.udpIsFree) { return range }
        }
        throw JanusProcessError("no free UDP range of \(count) ports")
    }
}
