import Connectivity
import ConnectivityProbe
import Foundation
import XMPP

/// coturn with a shared secret, and Prosody handing out that secret's credentials (XEP-0215),
/// both on loopback with free ports; users registered with `prosodyctl`.
final class ProsodyServers: Sendable {
    static let prosody = "/usr/bin/prosody"
    static let prosodyctl = "/usr/bin/prosodyctl"
    static let turnserver = "/usr/bin/turnserver"
    static let domain = "callscope.example"
    static let address = "127.0.0.1"

    /// Whether both are installed.
    static var installed: Bool { [prosody, prosodyctl, turnserver].allSatisfy(FileManager.default.isExecutableFile(atPath:)) }

    let secret = "secret-\(UInt64.random(in: 0...UInt64.max))"
    /// The XMPP domain this server hosts (`ProsodyServers.domain` unless federated).
    let domain: String
    /// Its federation settings, when it has any.
    let federation: FederatedServer?
    let turnPort: UInt16
    let httpPort: UInt16
    private let coturn: RigProcess
    private let server: RigProcess

    /// `ws://127.0.0.1:PORT/xmpp-websocket`.
    var webSocketURL: URL { URL(string: "ws://\(Self.address):\(httpPort)/xmpp-websocket")! }

    /// Where coturn listens and relays (and what Prosody announces for it).
    let turnAddress: String

    /// Starts coturn on `turnAddress`, waits for its STUN answer, starts Prosody with `users`
    /// (name → password) and waits for its HTTP port. With `federation`, Prosody serves
    /// `federation.domain` from Rig/prosody/prosody-federated.cfg.lua, with s2s on its port.
    init(users: [String: String], turnAddress: String = ProsodyServers.address, federation: FederatedServer? = nil) async throws {
        self.turnAddress = turnAddress
        domain = federation?.domain ?? Self.domain
        self.federation = federation
        turnPort = RigProcess.freePort(udpToo: true)
        let relayLow = UInt16.random(in: 30_000...50_000)
        coturn = try RigProcess("coturn", executable: Self.turnserver, template: "turnserver.conf", substitutions: [
            "@LISTEN_IP@": turnAddress, "@PORT@": "\(turnPort)", "@MIN_PORT@": "\(relayLow)", "@MAX_PORT@": "\(relayLow + 40)",
            "@REALM@": domain, "@SECRET@": secret,
        ]) { ["-c", $0] }
        let prober = DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: turnAddress, port: turnPort),
            udpSchedule: STUNRetransmissionSchedule(initialRTO: .milliseconds(100), transmissions: 2, finalWaitMultiplier: 2)))
        let turnPort = turnPort
        guard await RigProcess.waitUntil(.seconds(10), { prober.run(.udpBinding).succeeded }) else {
            await coturn.stop()
            throw RigFailure("coturn did not answer at \(turnAddress):\(turnPort) (log: \(coturn.directory))")
        }
        httpPort = RigProcess.freePort()
        var substitutions = ["@LISTEN_IP@": Self.address, "@C2S_PORT@": "\(RigProcess.freePort())", "@HTTP_PORT@": "\(httpPort)",
                             "@DOMAIN@": domain, "@TURN_SECRET@": secret, "@TURN_HOST@": turnAddress, "@TURN_PORT@": "\(turnPort)"]
        let template = federation == nil ? "prosody.cfg.lua" : "prosody-federated.cfg.lua"
        if let federation { substitutions.merge(federation.substitutions(address: Self.address), uniquingKeysWith: { _, new in new }) }
        do {
            server = try RigProcess("prosody", executable: Self.prosody, template: template, substitutions: substitutions) {
                ["--config", $0, "-F"]
            }
            let configuration = server.configurationPath(template)
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                try Self.run(Self.prosodyctl, ["--config", configuration, "register", user, domain, password])
            }
        } catch {
            await coturn.stop()
            throw error
        }
        let port = httpPort
        guard await RigProcess.waitUntil(.seconds(10), { Self.answers(port: port) }) else {
            await stop()
            throw RigFailure("prosody did not listen on \(Self.address):\(port) (log: \(server.directory))")
        }
    }

    func account(_ user: String, password: String) -> XMPPAccountSpec {
        XMPPAccountSpec(jid: JID(local: user, domain: domain), password: password, url: webSocketURL)
    }

    func stop() async {
        await server.stop()
        await coturn.stop()
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw RigFailure("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
    }

    /// Whether a TCP connection to the port succeeds now.
    private static func answers(port: UInt16) -> Bool {
        guard let address = try? ResolvedAddress.resolve(ProbeEndpoint(host: Self.address, port: port), stream: true),
              let socket = try? POSIXSocket(family: address.family, stream: true) else { return false }
        return (try? socket.open(to: address, deadline: .now + .milliseconds(200))) != nil
    }
}

/// Where one test user logs in.
struct XMPPAccountSpec {
    let jid: JID
    let password: String
    let url: URL
}
