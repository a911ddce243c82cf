import CallsChromium
import FriendConnections
import Foundation
import Friends
import Testing
import XMPP
import XMPPClient

/// Federation (issue 24): two Prosody servers on this machine, `a.callscope.example` (Alice's)
/// and `b.callscope.example` (Bob's), each with its own coturn, s2s on free loopback ports with
/// dialback (Rig/prosody/prosody-federated.cfg.lua). Alice and Bob become friends across the
/// domains, see each other come and go, and their friend managers (a headless Chromium each)
/// bring a friend connection up over Jingle that travels Alice → a → b → Bob and back.
/// A third domain routes to a port that accepts TCP and never speaks s2s: a friend request
/// there must come back as a stanza error, not hang; a server claiming that domain cannot get a
/// friend request to Alice (dialback fails) and is closed with an error. Gated by CALLSCOPE_REAL=1 (Scripts/test.sh,
/// under the rig lock: it starts two Chromiums).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealFederationTests {
    static let domainA = "a.callscope.example"
    static let domainB = "b.callscope.example"
    /// Routed to a silent listener: a remote domain that does not answer s2s.
    static let silentDomain = "c.callscope.example"
    static let alice = JID(local: "alice", domain: domainA)
    static let bob = JID(local: "bob", domain: domainB)
    static let carol = JID(local: "carol", domain: silentDomain)
    static let mallory = JID(local: "mallory", domain: silentDomain)
    /// Prosody's `s2s_timeout` in these tests: how long an s2s connection may stay unauthenticated.
    static let s2sTimeout = 5

    func log(_ line: String) { print("federation-real: \(line)") }

    @Test(.timeLimit(.minutes(3)))
    func friendsAcrossDomainsSeePresenceAndConnect() async throws {
        let silent = try SilentListener()
        let portA = RigProcess.freePort(), portB = RigProcess.freePort()
        var servers: [ProsodyServers] = []
        var engines: [ChromiumMediaEngine] = []
        do {
            let startAt = ContinuousClock.now
            servers.append(try await ProsodyServers(users: ["alice": "alice-pw"], federation: FederatedServer(
                domain: Self.domainA, s2sPort: portA, routes: [Self.domainB: portB, Self.silentDomain: silent.port], s2sTimeout: Self.s2sTimeout)))
            servers.append(try await ProsodyServers(users: ["bob": "bob-pw"], federation: FederatedServer(
                domain: Self.domainB, s2sPort: portB, routes: [Self.domainA: portA], s2sTimeout: Self.s2sTimeout)))
            log("measured: two Prosody servers and two coturns up in \(format(ContinuousClock.now - startAt))")
            try await scenario(a: servers[0], b: servers[1], engines: &engines)
        } catch {
            Issue.record("federation-real: \(error)")
        }
        // Torn down side by side: each server may take up to 3 s to exit on SIGTERM.
        let stopAt = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for engine in engines { group.addTask { await engine.shutdown() } }
            for server in servers { group.addTask { await server.stop() } }
        }
        log("teardown in \(format(ContinuousClock.now - stopAt))")
        silent.close()
    }

    private func client(_ servers: ProsodyServers, _ jid: JID) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: jid, password: "\(jid.local)-pw", webSocketURL: servers.webSocketURL),
                   configuration: XMPPClientConfiguration(pingInterval: .seconds(5), reconnectionDelays: [.milliseconds(100), .milliseconds(500)]))
    }

    private func scenario(a: ProsodyServers, b: ProsodyServers, engines: inout [ChromiumMediaEngine]) async throws {
        let alice = client(a, Self.alice), bob = client(b, Self.bob)
        let aliceLog = EventLog.recording(alice), bobLog = EventLog.recording(bob)
        try await alice.connect()
        try await bob.connect()

        // A friend request to a domain whose server accepts TCP and never answers: sent first, so
        // the federation below also shows it blocks nothing. It must bounce after s2s_timeout.
        let carolAt = ContinuousClock.now
        try await alice.addFriend(Self.carol)
        // The other way: a server claiming the silent domain connects to a's s2s port, asks for
        // dialback and sends Alice a friend request from Mallory without waiting. Prosody cannot
        // verify the domain (its server never answers): the request must never reach Alice, and
        // the stream must be closed with an error, not left open.
        let sPort = a.federation?.s2sPort ?? 0
        let unverifiable = Task {
            await UnverifiableS2SPeer.run(port: sPort, claiming: Self.silentDomain, to: Self.domainA, subscriber: Self.mallory.description,
                                          contact: Self.alice.description, within: .seconds(Self.s2sTimeout + 15))
        }

        // 1. Friends across domains: the request crosses a → b (the first s2s connection, with
        //    dialback both ways), Bob approves and asks back, Alice's client approves that.
        let requestAt = ContinuousClock.now
        try await alice.addFriend(Self.bob)
        let request = await bobLog.first(within: .seconds(15)) { $0 == .roster(.subscriptionRequest(from: Self.alice)) }
        let bobEventsSoFar = await bobLog.events
        try #require(request != nil, "bob got no friend request across domains: \(bobEventsSoFar)")
        log("measured: friend request a → b (first s2s connection, dialback) in \(format(request!.at - requestAt))")
        let approveAt = ContinuousClock.now
        try await bob.approveFriendRequest(from: Self.alice)
        let bobOnline = await aliceLog.first(within: .seconds(10)) { Self.isFriend($0, Self.bob, online: true) }
        let aliceOnline = await bobLog.first(within: .seconds(10)) { Self.isFriend($0, Self.alice, online: true) }
        let aliceSaw = await aliceLog.events, bobSaw = await bobLog.events
        try #require(bobOnline != nil, "alice never saw bob online: \(aliceSaw)")
        try #require(aliceOnline != nil, "bob never saw alice online: \(bobSaw)")
        log("measured: approval → mutual friends online, alice sees bob \(format(bobOnline!.at - approveAt)), bob sees alice \(format(aliceOnline!.at - approveAt))")
        #expect(await alice.friends.map(\.jid) == [Self.bob], "carol is no friend: only asked, never answered")
        #expect(await bob.friends.map(\.jid) == [Self.alice])

        // 2. Presence comes and goes across the domains, both ways.
        for (mover, moverJID, watcherLog) in [(bob, Self.bob, aliceLog), (alice, Self.alice, bobLog)] {
            let before = await watcherLog.count
            let leftAt = ContinuousClock.now
            await mover.disconnect()
            let gone = await watcherLog.first(after: before, within: .seconds(5)) { Self.isFriend($0, moverJID, online: false) }
            #expect(gone != nil, "\(moverJID) going offline was not seen across domains")
            let back = await watcherLog.count
            let cameAt = ContinuousClock.now
            try await mover.connect()
            let came = await watcherLog.first(after: back, within: .seconds(5)) { Self.isFriend($0, moverJID, online: true) }
            #expect(came != nil, "\(moverJID) coming online was not seen across domains")
            log("measured: \(moverJID) offline seen across in \(format(gone.map { $0.at - leftAt })), online again (login included) in \(format(came.map { $0.at - cameAt }))")
        }

        // 3. Friend managers, a headless Chromium each: a friend connection across the domains,
        //    its Jingle IQs going through both servers; on loopback the path is direct UDP.
        let launchAt = ContinuousClock.now
        engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions()))
        engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions()))
        log("measured: two headless Chromiums launched in \(format(ContinuousClock.now - launchAt))")
        let aliceManager = FriendManager(client: alice, engine: engines[0])
        let bobManager = FriendManager(client: bob, engine: engines[1])
        let aliceEvents = FriendEventLog.recording(aliceManager), bobEvents = FriendEventLog.recording(bobManager)
        let origin = ContinuousClock.now
        try await aliceManager.start()
        try await bobManager.start()
        let aliceDirect = await aliceEvents.first(after: origin, within: .seconds(20), where: FriendEventLog.paths(Self.bob) { $0.contains(.udpDirect) })
        let bobDirect = await bobEvents.first(after: origin, within: .seconds(20), where: FriendEventLog.paths(Self.alice) { $0.contains(.udpDirect) })
        log("measured: friend path across domains: alice sees udpDirect \(format(aliceDirect.map { $0 - origin })), bob \(format(bobDirect.map { $0 - origin })) after start()")
        #expect(aliceDirect != nil, "alice: udpDirect to bob: \(aliceEvents.timeline(from: origin))")
        #expect(bobDirect != nil, "bob: udpDirect to alice: \(bobEvents.timeline(from: origin))")
        #expect(await aliceManager.paths(of: Self.bob).contains(.udpDirect))

        // 4. Meanwhile the request to the silent domain has bounced: a typed error, counted, no hang.
        let bounced = await aliceLog.first(within: .seconds(Self.s2sTimeout + 10)) { event in
            guard case .droppedMessage(let error) = event else { return false }
            // RFC 6120 §8.3.3: remote-server-not-found, or remote-server-timeout.
            return error.code == .stanzaError && error.message.contains(Self.carol.description) && error.message.contains("remote-server-")
        }
        let aliceEventsSoFar = await aliceLog.events
        #expect(bounced != nil, "no error for the request to \(Self.silentDomain): \(aliceEventsSoFar)")
        if let bounced { log("measured: request to the silent domain bounced after \(format(bounced.at - carolAt)): \(bounced.event)") }
        #expect(bounced.map { $0.at - carolAt <= .seconds(Self.s2sTimeout + 5) } == true)
        #expect(await alice.statistics.droppedMessages >= 1)
        let inbound = await unverifiable.value
        log("measured: unverifiable s2s peer closed after \(format(inbound.closedAfter)), server said: \(inbound.reply.suffix(600))")
        #expect(inbound.closedAfter.map { $0 <= .seconds(Self.s2sTimeout + 5) } == true, "the unverifiable stream was left open: \(inbound.reply)")
        #expect(inbound.reply.contains("error"), "no error for the unverifiable domain: \(inbound.reply)")
        let fromMallory = await aliceLog.first(within: .zero) { $0 == .roster(.subscriptionRequest(from: Self.mallory)) }
        #expect(fromMallory == nil, "an unverified domain's friend request reached alice")

        // 5. Bob logs out: across the domains, Alice's paths to him go empty.
        let loggedOut = ContinuousClock.now
        await bob.disconnect()
        let aliceEmpty = await aliceEvents.first(after: loggedOut, within: .seconds(5), where: FriendEventLog.paths(Self.bob) { $0.isEmpty })
        log("measured: alice's paths to bob empty \(format(aliceEmpty.map { $0 - loggedOut })) after bob logged out")
        #expect(aliceEmpty != nil, "alice's paths to bob never emptied: \(aliceEvents.timeline(from: origin))")
        log("statistics alice \(await aliceManager.statistics), bob \(await bobManager.statistics)")
        await bobManager.stop()
        await aliceManager.stop()
        await alice.disconnect()
    }

    private static func isFriend(_ event: XMPPClientEvent, _ jid: JID, online: Bool) -> Bool {
        switch event {
        case .roster(.friendAdded(let friend)), .roster(.friendChanged(let friend)):
            return friend.jid == jid && (friend.availability != .offline) == online
        default:
            return false
        }
    }

    private func format(_ duration: Duration?) -> String {
        duration.map { String(format: "%.3f s", $0.seconds) } ?? "never"
    }
}
