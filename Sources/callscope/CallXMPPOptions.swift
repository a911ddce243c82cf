import Calls
import CallsJingle
import Foundation
import XMPP
import XMPPClient

/// `callscope call --xmpp ws://HOST:PORT/PATH --jid USER@DOMAIN (--call FRIEND | --answer FRIEND)
/// [--password-env VAR]`: a relayed call with one friend over XMPP and Jingle (docs/peer-to-peer.md,
/// "Relayed calls") instead of a Janus room.
struct CallXMPPOptions {
    static let options: Set<String> = ["--xmpp", "--jid", "--call", "--answer", "--password-env"]
    static let help = """
    --xmpp ws://HOST:PORT/PATH --jid USER@DOMAIN --call FRIEND makes a relayed call with FRIEND
    (a friend on the roster) instead of joining a Janus room: XEP-0353 call initiation, one Jingle
    session per publication, media straight between the two browsers; --answer FRIEND waits for
    FRIEND's call and takes it. The password comes from the environment variable --password-env
    names (default CALLSCOPE_XMPP_PASSWORD). A relayed --publish returns when the friend
    subscribed (within 60 s). ws:// only on Linux.
    """

    private var url: URL?, jid: JID?, friend: JID?, role: JingleCallRole?, passwordVariable = "CALLSCOPE_XMPP_PASSWORD"

    /// Whether any XMPP option was given.
    var isSet: Bool { url != nil || jid != nil || friend != nil }

    /// Takes one of ``options`` and its value.
    mutating func take(_ option: String, _ text: String) throws {
        switch option {
        case "--xmpp":
            guard let parsed = URL(string: text), ["ws", "wss"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw UsageError("--xmpp takes ws://HOST:PORT/PATH, not '\(text)'")
            }
            url = parsed
        case "--jid":
            guard let parsed = JID(text), !parsed.local.isEmpty else { throw UsageError("--jid takes USER@DOMAIN, not '\(text)'") }
            jid = parsed
        case "--password-env":
            guard !text.isEmpty, !text.contains("=") else { throw UsageError("--password-env takes an environment variable's name, not '\(text)'") }
            passwordVariable = text
        default:
            guard let parsed = JID(text), !parsed.local.isEmpty else { throw UsageError("\(option) takes the friend's USER@DOMAIN, not '\(text)'") }
            guard friend == nil else { throw UsageError("--call and --answer name one friend, once") }
            friend = parsed.bare
            role = option == "--call" ? .caller : .callee
        }
    }

    /// The account and the call, checked: all of `--xmpp`, `--jid` and one of `--call` /
    /// `--answer`, and the password in the environment.
    func account(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (XMPPAccount, friend: JID, role: JingleCallRole) {
        guard let url, let jid, let friend, let role else {
            throw UsageError("a relayed call needs --xmpp URL, --jid USER@DOMAIN and --call FRIEND or --answer FRIEND")
        }
        guard let password = environment[passwordVariable], !password.isEmpty else {
            throw UsageError("the XMPP password goes in the environment variable \(passwordVariable) (--password-env names another)")
        }
        return (XMPPAccount(jid: jid, password: password, webSocketURL: url), friend, role)
    }
}

/// A relayed call's XMPP side: the logged-in client and the signalling over it.
struct RelayedCallConnection {
    let client: XMPPClient
    let signaling: JingleCallSignaling

    /// Logs in (an unreachable server or refused credentials end the call with one line, exit 1).
    static func open(_ options: CallXMPPOptions) async throws -> RelayedCallConnection {
        let (account, friend, role) = try options.account()
        let client = XMPPClient(account: account)
        try await client.connect()
        return RelayedCallConnection(client: client, signaling: JingleCallSignaling(client: client, friend: friend, role: role))
    }
}
