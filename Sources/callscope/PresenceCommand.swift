import CallScopeCore
import Connectivity
import ConnectivityProbe
import CallsChromium
import Foundation
import Friends
import XMPP
import XMPPClient

/// `callscope presence`: logs in to an XMPP server over WebSocket, prints this machine's
/// discoverability (probed against the STUN/TURN servers the XMPP server announces, XEP-0215)
/// and the friends' presence as it changes, until `--duration` or SIGINT/SIGTERM.
struct PresenceCommand: Command {
    static let name = "presence"
    static let summary = "Log in to XMPP: discoverability and friends' presence as they change."
    static let help = """
    callscope presence --xmpp ws://HOST:PORT/PATH --jid USER@DOMAIN [--password P] [--resource R]
                       [--add-friend JID]... [--accept-friends] [--allow-plain] [--paths]
                       [--duration SECONDS] [--format text|ndjson]

    Logs in to an XMPP server over WebSocket (RFC 7395; SCRAM-SHA-1, PLAIN only with
    --allow-plain), then prints: the connection (and each loss and automatic reconnection or
    XEP-0198 resumption), discoverability (udp / tcp / offline) from the STUN and TURN servers
    the XMPP server hands out (XEP-0215), again after each new connection, and every friend
    (mutual subscription) coming online, changing or going offline. --add-friend asks JID to be
    a friend; --accept-friends approves every friend request. The password comes from
    --password or the CALLSCOPE_XMPP_PASSWORD environment variable. Runs for --duration seconds
    (default: until SIGINT or SIGTERM), then logs out cleanly. ws:// only on Linux
    (docs/peer-to-peer.md).

    --paths also keeps a friend connection (a data-channel-only peer connection in a headless
    Chromium, negotiated over XMPP with Jingle) to every online friend and prints each friend's
    paths (udpDirect / udpRelay / tcpRelay, or none) as they change; discoverability is then
    re-probed on its own (every 4 s, and on a network change) and printed when it changes.
    """

    enum Format: String { case text, ndjson }

    let account: XMPPAccount
    let friendsToAdd: [JID]
    let acceptFriends: Bool
    let friendPaths: Bool
    let duration: Double
    let format: Format

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        var url: URL?, jid: JID?, password = ProcessInfo.processInfo.environment["CALLSCOPE_XMPP_PASSWORD"], resource = "callscope"
        var add: [JID] = [], accept = false, plain = false, paths = false, duration = Double.infinity, format = Format.text
        func value(_ option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--xmpp":
                let text = try value(argument)
                guard let parsed = URL(string: text), ["ws", "wss"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                    throw UsageError("--xmpp takes ws://HOST:PORT/PATH, not '\(text)'")
                }
                url = parsed
            case "--jid":
                let text = try value(argument)
                guard let parsed = JID(text), !parsed.local.isEmpty else { throw UsageError("--jid takes USER@DOMAIN, not '\(text)'") }
                jid = parsed
            case "--password": password = try value(argument)
            case "--resource": resource = try value(argument)
            case "--add-friend":
                let text = try value(argument)
                guard let parsed = JID(text), !parsed.local.isEmpty else { throw UsageError("--add-friend takes USER@DOMAIN, not '\(text)'") }
                add.append(parsed)
            case "--accept-friends": accept = true
            case "--allow-plain": plain = true
            case "--paths": paths = true
            case "--duration":
                guard let number = Double(try value(argument)), number > 0 else { throw UsageError("--duration takes seconds (> 0)") }
                duration = number
            case "--format":
                guard let parsed = Format(rawValue: try value(argument)) else { throw UsageError("--format takes 'text' or 'ndjson'") }
                format = parsed
            default: throw UsageError("unknown option '\(argument)' for presence")
            }
        }
        guard let url else { throw UsageError("presence needs --xmpp ws://HOST:PORT/PATH") }
        guard let jid else { throw UsageError("presence needs --jid USER@DOMAIN") }
        guard let password else { throw UsageError("presence needs --password or CALLSCOPE_XMPP_PASSWORD") }
        account = XMPPAccount(jid: jid, password: password, resource: resource, webSocketURL: url, allowsPlainAuthentication: plain)
        friendsToAdd = add
        acceptFriends = accept
        friendPaths = paths
        self.duration = duration
        self.format = format
    }

    func run() throws -> ExitCode {
        let failure = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let command = self
        Task {
            do { try await command.watch() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return .success
    }

    private func watch() async throws {
        let end = CallEnd()
        defer { end.finish() }
        let printer = PresencePrinter(format: format)
        let client = XMPPClient(account: account)
        let events = client.events()
        let follower = Task {
            for await event in events {
                printer.print(event)
                switch event {
                case .connected where !friendPaths:
                    // Discoverability again on every new connection: the network may have changed.
                    let services = (try? await client.externalServices()) ?? []
                    let reading = await Task.detached { Self.discoverability(services) }.value
                    printer.discoverability(reading)
                case .roster(.subscriptionRequest(let from)) where acceptFriends:
                    try? await client.approveFriendRequest(from: from)
                default:
                    break
                }
            }
        }
        defer { follower.cancel() }
        try await client.connect()
        for friend in friendsToAdd { try await client.addFriend(friend) }
        var friends: (manager: FriendManager, engine: ChromiumMediaEngine, follower: Task<Void, Never>)?
        if friendPaths {
            let engine = try await ChromiumMediaEngine.launch()
            let manager = FriendManager(client: client, engine: engine)
            let managerEvents = manager.events()
            friends = (manager, engine, Task { for await event in managerEvents { printer.print(event) } })
            do { try await manager.start() } catch {
                await engine.shutdown()
                throw error
            }
        }
        _ = await end.wait(seconds: duration.isFinite ? duration : 365 * 86_400)
        if let friends {
            await friends.manager.stop()
            await friends.engine.shutdown()
            friends.follower.cancel()
        }
        await client.disconnect()
        try? await Task.sleep(for: .milliseconds(100))   // let the follower print the last events
    }

    /// One discoverability reading against the announced servers: STUN over UDP, TURN over TCP
    /// with the announced credentials; `nil` when the server announces no STUN server.
    private static func discoverability(_ services: [ExternalService]) -> (DiscoverabilityWatcher.Reading, [ExternalService])? {
        guard let stun = services.first(where: { $0.type == "stun" && $0.transport != "tcp" }) else { return nil }
        let turn = services.first { $0.type == "turn" && $0.transport == "tcp" && $0.username != nil }
        let configuration = DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: stun.host, port: stun.port ?? 3478),
            turnServer: turn.map { ProbeEndpoint(host: $0.host, port: $0.port ?? 3478) },
            credentials: turn.map { STUNCredentials(username: $0.username ?? "", password: $0.password ?? "") })
        let watcher = DiscoverabilityWatcher(prober: DiscoverabilityProber(configuration: configuration))
        return (watcher.evaluateOnce(), [stun] + (turn.map { [$0] } ?? []))
    }
}
