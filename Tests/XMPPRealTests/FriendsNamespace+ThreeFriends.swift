import Calls
import CallsChromium
import CallsJingle
import Foundation
import Testing
import XMPP
import XMPPClient

/// The three friends of the mesh tests and their call of three.
enum MeshOfThree {
    static let names = ["alice", "bob", "carol"]
    /// Carol, whose Chromium runs in the namespace.
    static let carol = 2
    static func jid(_ name: String) -> JID { JID(local: name, domain: ProsodyServers.domain) }

    /// Each pair becomes friends (one asks, the other approves).
    static func befriend(_ clients: [XMPPClient]) async throws {
        let logs = clients.map { RelayedCallRecorder($0.events()) }
        for client in clients { try await client.connect() }
        for (asker, approver) in [(0, 1), (0, 2), (1, 2)] {
            try await clients[asker].addFriend(jid(names[approver]))
            let asked = jid(names[asker])
            _ = await logs[approver].wait(.seconds(5)) { $0 == .roster(.subscriptionRequest(from: asked)) }
            try await clients[approver].approveFriendRequest(from: asked)
        }
        for (index, log) in logs.enumerated() {
            let others = Set(names.filter { $0 != names[index] }.map(jid))
            let online = await log.wait(.seconds(5)) { _ in
                let seen = Set(log.all.compactMap { event -> JID? in
                    switch event {
                    case .roster(.friendChanged(let friend)), .roster(.friendAdded(let friend)): friend.availability != .offline ? friend.jid : nil
                    default: nil
                    }
                })
                return others.isSubset(of: seen)
            }
            try #require(online != nil, "\(names[index]) sees both friends online")
        }
    }

    /// A session each over ``JingleMeshCallSignaling`` (Alice calls, the others answer), recorded
    /// by `record` from before it connects, all three connected at once; with their signalling and
    /// connection ids.
    static func join<Recorder>(clients: [XMPPClient], engines: [any MediaEngine], record: (CallSession) -> Recorder) async throws
        -> (signalings: [JingleMeshCallSignaling], sessions: [CallSession], recorders: [Recorder], ids: [String]) {
        let signalings = (0..<3).map { index in
            JingleMeshCallSignaling(client: clients[index], friends: names.filter { $0 != names[index] }.map(jid), role: index == 0 ? .caller : .callee)
        }
        let sessions = (0..<3).map { index in
            CallSession(signaling: signalings[index], engine: engines[index], clock: ContinuousClock(), wallClock: Date.init)
        }
        let recorders = sessions.map(record)
        async let aliceJoined: Void = sessions[0].connect(display: names[0])
        async let bobJoined: Void = sessions[1].connect(display: names[1])
        async let carolJoined: Void = sessions[2].connect(display: names[2])
        _ = try await (aliceJoined, bobJoined, carolJoined)
        var ids: [String] = []
        for session in sessions { ids.append(try #require(await session.connection?.connectionId)) }
        return (signalings, sessions, recorders, ids)
    }
}

extension FriendsNamespace {
    /// Prosody and coturn with the users alice, bob and carol, one XMPP client each
    /// (``ProsodyServers/client(_:)``), Alice's and Bob's headless Chromium outside and Carol's
    /// inside this namespace (15 fps fake cameras; chromedriver stays outside and talks to hers
    /// over a pipe), for `body`. Afterwards, whether `body` threw or not: `beforeStop` (to undo
    /// what the test changed), the clients disconnected, the Chromiums shut down, the servers
    /// stopped. An error is recorded as an issue prefixed with `label`.
    func withThreeFriends(label: String, beforeStop: () -> Void = {},
                          _ body: ([XMPPClient], [ChromiumMediaEngine]) async throws -> Void) async {
        let work = NSTemporaryDirectory() + "callscope-\(label)-\(UUID().uuidString)"
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        var clients: [XMPPClient] = []
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let started = try await ProsodyServers(users: Dictionary(uniqueKeysWithValues: MeshOfThree.names.map { ($0, "\($0)-pw") }),
                                                   turnAddress: FriendsNamespace.rootAddress)
            servers = started
            let options = ChromiumOptions(fakeCameraFrameRate: 15)
            async let alice = ChromiumMediaEngine.launch(options)
            async let bob = ChromiumMediaEngine.launch(options)
            async let carol = ChromiumMediaEngine.launch(ChromiumOptions(chromiumPath: chromiumWrapper(in: work), fakeCameraFrameRate: 15,
                                                                         extraArguments: ["--remote-debugging-pipe"]))
            engines = try await [alice, bob, carol]
            clients = MeshOfThree.names.map(started.client)
            try await body(clients, engines)
        } catch {
            Issue.record("\(label): \(error)")
        }
        beforeStop()
        for client in clients { await client.disconnect() }
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
        try? FileManager.default.removeItem(atPath: work)
    }
}
