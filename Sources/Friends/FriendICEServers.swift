import Connectivity
import ConnectivityProbe
import XMPP

/// The XMPP server's STUN/TURN servers (XEP-0215) as ICE server URLs for the friend connections
/// and as the discoverability prober's configuration.
struct FriendICEServers: Sendable {
    /// `stun:HOST:PORT` and `turn:HOST:PORT?transport=udp|tcp`.
    var urls: [String] = []
    /// The TURN credentials (XEP-0215 hands out one pair per request: coturn's `use-auth-secret`).
    var username: String?
    var password: String?
    var probeConfiguration: DiscoverabilityProbeConfiguration

    /// Reads `services`; throws when there is no STUN server to probe against.
    init(_ services: [ExternalService]) throws(FriendManagerError) {
        let stun = services.filter { $0.type == "stun" && ($0.transport ?? "udp") == "udp" }
        let turn = services.filter { $0.type == "turn" || $0.type == "turns" }
        guard let firstSTUN = stun.first else {
            throw FriendManagerError(.noSTUNServer, "the XMPP server announced no STUN server over UDP (services: \(services.map(\.type)))")
        }
        urls = stun.map { "stun:\(Self.host($0.host)):\($0.port ?? 3478)" }
        for server in turn where server.username != nil && server.password != nil {
            let scheme = server.type == "turns" ? "turns" : "turn"
            let port = server.port ?? (scheme == "turns" ? 5349 : 3478)
            urls.append("\(scheme):\(Self.host(server.host)):\(port)?transport=\(server.transport ?? "udp")")
            if username == nil {
                username = server.username
                password = server.password
            }
        }
        let tcpTURN = turn.first { $0.type == "turn" && $0.transport == "tcp" && $0.username != nil && $0.password != nil }
        probeConfiguration = DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: firstSTUN.host, port: firstSTUN.port ?? 3478),
            turnServer: tcpTURN.map { ProbeEndpoint(host: $0.host, port: $0.port ?? 3478) },
            credentials: tcpTURN.flatMap { server in server.username.flatMap { user in server.password.map { STUNCredentials(username: user, password: $0) } } })
    }

    /// An IPv6 literal in brackets, as an ICE server URL needs it.
    private static func host(_ host: String) -> String { host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host }
}
