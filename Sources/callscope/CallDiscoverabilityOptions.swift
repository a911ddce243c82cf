import Calls
import Connectivity
import ConnectivityProbe

/// `callscope call --stun HOST:PORT [--turn HOST:PORT --user U --password P]`: measure our
/// discoverability during the call (`session.connectionStateChanged` lines), with the probes of
/// `callscope discover`.
struct CallDiscoverabilityOptions {
    static let options: Set<String> = ["--stun", "--turn", "--user", "--password"]
    private var stun: ProbeEndpoint?, turn: ProbeEndpoint?, user: String?, password: String?

    /// Takes one of ``options`` and its value.
    mutating func take(_ option: String, _ text: String) throws {
        switch option {
        case "--user": user = text
        case "--password": password = text
        default:
            guard let endpoint = ProbeEndpoint(parsing: text) else { throw UsageError("\(option) takes HOST:PORT (or [IPv6]:PORT), not '\(text)'") }
            if option == "--stun" { stun = endpoint } else { turn = endpoint }
        }
    }

    /// The session's discoverability, or `nil` without `--stun`.
    func discoverability() throws -> SessionDiscoverability? {
        guard (turn == nil) == (user == nil), (user == nil) == (password == nil) else {
            throw UsageError("--turn, --user and --password go together")
        }
        guard let stun else {
            if turn != nil { throw UsageError("--turn needs --stun") }
            return nil
        }
        let configuration = DiscoverabilityProbeConfiguration(
            stunServer: stun, turnServer: turn, credentials: user.map { STUNCredentials(username: $0, password: password ?? "") })
        return SessionDiscoverability(probe: DiscoverabilityProber(configuration: configuration))
    }
}
