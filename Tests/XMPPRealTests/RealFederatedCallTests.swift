import CallsChromium
import Foundation
import Testing
import XMPP
import XMPPClient

/// A relayed call across federated servers (issue 24: "friends across domains see each other
/// and call"): Alice on `a.callscope.example`, Bob on `b.callscope.example`, the federation rig
/// of RealFederationTests (two Prosody servers with s2s and dialback on loopback, a coturn
/// each), and the call of RealRelayedCallTests: XEP-0353 and every Jingle IQ go Alice → a → b →
/// Bob and back; both publish and subscribe, video flows both ways, each publisher's stats name
/// the other, then Bob leaves. Gated by CALLSCOPE_REAL=1 (Scripts/test.sh, under the rig lock:
/// it starts two Chromiums).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealFederatedCallTests {
    static let alice = JID(local: "alice", domain: RealFederationTests.domainA)
    static let bob = JID(local: "bob", domain: RealFederationTests.domainB)

    private func client(_ servers: ProsodyServers, _ jid: JID) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: jid, password: "\(jid.local)-pw", webSocketURL: servers.webSocketURL))
    }

    @Test(.timeLimit(.minutes(2)))
    func friendsOnTwoDomainsCallEachOther() async throws {
        let portA = RigProcess.freePort(), portB = RigProcess.freePort()
        var servers: [ProsodyServers] = []
        var engines: [ChromiumMediaEngine] = []
        var clients: [XMPPClient] = []
        let startAt = ContinuousClock.now
        do {
            servers.append(try await ProsodyServers(users: ["alice": "alice-pw"], federation: FederatedServer(
                domain: RealFederationTests.domainA, s2sPort: portA, routes: [RealFederationTests.domainB: portB], s2sTimeout: RealFederationTests.s2sTimeout)))
            servers.append(try await ProsodyServers(users: ["bob": "bob-pw"], federation: FederatedServer(
                domain: RealFederationTests.domainB, s2sPort: portB, routes: [RealFederationTests.domainA: portA], s2sTimeout: RealFederationTests.s2sTimeout)))
            let options = ChromiumOptions(fakeCameraFrameRate: 15)
            engines.append(try await ChromiumMediaEngine.launch(options))
            engines.append(try await ChromiumMediaEngine.launch(options))
            print("federated-call-real: servers and browsers up in \(String(format: "%.2f s", (ContinuousClock.now - startAt).seconds))")
            clients = [client(servers[0], Self.alice), client(servers[1], Self.bob)]
            try await clients[0].connect()
            try await clients[1].connect()
            try await RelayedTwoPartyCall(alice: .init(client: clients[0], jid: Self.alice, engine: engines[0]),
                                          bob: .init(client: clients[1], jid: Self.bob, engine: engines[1]),
                                          log: { print("federated-call-real: \($0)") }).run()
        } catch {
            Issue.record("federated-call-real: \(error)")
        }
        for client in clients { await client.disconnect() }
        // Torn down side by side, as in RealFederationTests.
        await withTaskGroup(of: Void.self) { group in
            for engine in engines { group.addTask { await engine.shutdown() } }
            for server in servers { group.addTask { await server.stop() } }
        }
        print("federated-call-real: whole test \(String(format: "%.2f s", (ContinuousClock.now - startAt).seconds))")
    }
}
