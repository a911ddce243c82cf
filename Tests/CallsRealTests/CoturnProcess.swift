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
    private let service: ServiceProcess

    /// `turn:ADDRESS:PORT?transport=udp|tcp`.
    func url(transport: String) -> String { "turn:\(address):\(port)?transport=\(transport)" }
    /// STUN and TURN on the same port.
    var endpoint: ProbeEndpoint { ProbeEndpoint(host: address, port: port) }
    var credentials: STUNCredentials { STUNCredentials(username: Self.user, password: Self.password) }

    /// Starts coturn on `address` and waits until it answers a STUN binding (from here).
    init(address: String = NetworkNamespace.rootAddress) async throws {
        self.address = address
        let port = try ServiceProcess.freePort(udpToo: true)
        self.port = port
        let relays = try ServiceProcess.freeUDPRange(count: 40)
        let prober = DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: address, port: port),
            udpSchedule: STUNRetransmissionSchedule(initialRTO: .milliseconds(100), transmissions: 2, finalWaitMultiplier: 2)))
        service = try await ServiceProcess("coturn", executable: Self.turnserver, at: "\(address):\(port) (relays \(relays))",
                                           readyWithin: .seconds(10), pollingEvery: .milliseconds(100), stopGrace: .seconds(3)) { directory in
            let substitutions = ["@LISTEN_IP@": address, "@PORT@": "\(port)", "@RELAY_IP@": address,
                                 "@MIN_PORT@": "\(relays.lowerBound)", "@MAX_PORT@": "\(relays.upperBound)",
                                 "@REALM@": Self.realm, "@USER@": Self.user, "@PASSWORD@": Self.password, "@RUN_DIR@": directory]
            let configuration = directory + "/turnserver.conf"
            try ServiceProcess.fill(RealComponents.repository.appendingPathComponent("Rig/coturn/turnserver.conf"), substitutions, to: configuration)
            return ["-c", configuration]
        } answers: {
            await prober.probe(.udpBinding).succeeded
        }
    }

    func stop() async { await service.stop() }
}
