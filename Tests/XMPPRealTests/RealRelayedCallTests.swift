import CallsChromium
import Foundation
import Testing
import XMPP
import XMPPClient

/// A relayed call of two friends on real components: Prosody (XMPP, XEP-0353 and Jingle
/// between the clients) and coturn started by the test, each side a `CallSession` over
/// `JingleCallSignaling` with its own headless Chromium; media flows between the two browsers.
/// Gated by CALLSCOPE_REAL=1 (Scripts/test.sh, under the rig lock); no network namespace.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealRelayedCallTests {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)

    private func client(_ servers: ProsodyServers, _ user: String) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: JID(local: user, domain: ProsodyServers.domain), password: "\(user)-pw", webSocketURL: servers.webSocketURL))
    }

    @Test(.timeLimit(.minutes(2)))
    func twoFriendsPublishSubscribeAndOneLeaves() async throws {
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        var clients: [XMPPClient] = []
        do {
            servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"])
            let options = ChromiumOptions(fakeCameraFrameRate: 15)
            engines.append(try await ChromiumMediaEngine.launch(options))
            engines.append(try await ChromiumMediaEngine.launch(options))
            clients = [client(try #require(servers), "alice"), client(try #require(servers), "bob")]
            try await scenario(alice: clients[0], bob: clients[1], aliceEngine: engines[0], bobEngine: engines[1])
        } catch {
            Issue.record("relayed-real: \(error)")
        }
        for client in clients { await client.disconnect() }
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
    }

    private func scenario(alice: XMPPClient, bob: XMPPClient, aliceEngine: ChromiumMediaEngine, bobEngine: ChromiumMediaEngine) async throws {
        try await alice.connect()
        try await bob.connect()
        try await RelayedTwoPartyCall(alice: .init(client: alice, jid: Self.alice, engine: aliceEngine),
                                      bob: .init(client: bob, jid: Self.bob, engine: bobEngine), log: { print("relayed-real: \($0)") }).run()
    }
}
