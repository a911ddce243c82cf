import Connectivity
import ConnectivityProbe
import Foundation
import Testing
import XMPP
import XMPPClient

/// The XMPP client on a real Prosody 0.12 (ws://, SCRAM-SHA-1, XEP-0198, XEP-0215) with a real
/// coturn behind its STUN/TURN credentials. Gated by CALLSCOPE_REAL=1 (Scripts/test.sh).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct XMPPRealTests {
    @Test func friendsPresenceServicesAndResumption() async throws {
        let servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"])
        do {
            try await scenario(servers)
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    private func scenario(_ servers: ProsodyServers) async throws {
        let alice = servers.client("alice"), bob = servers.client("bob")
        let aliceLog = EventLog.recording(alice), bobLog = EventLog.recording(bob)
        let aliceJID = JID(local: "alice", domain: ProsodyServers.domain), bobJID = JID(local: "bob", domain: ProsodyServers.domain)

        // Log in over ws:// with SCRAM-SHA-1.
        let loginStart = ContinuousClock.now
        try await alice.connect()
        try await bob.connect()
        print("xmpp-real: two logins in \(ContinuousClock.now - loginStart)")
        #expect(await alice.jid?.bare == aliceJID)
        #expect(await bob.jid?.bare == bobJID)
        #expect(await alice.friends.isEmpty)

        // Become friends: alice asks, bob approves (and asks back), alice's client approves that.
        try await alice.addFriend(bobJID)
        let request = await bobLog.first(within: .seconds(5)) { $0 == .roster(.subscriptionRequest(from: aliceJID)) }
        #expect(request != nil, "bob got no friend request: ")
        if request == nil { print("xmpp-real: events: \(await bobLog.events)") }
        try await bob.approveFriendRequest(from: aliceJID)
        let bobOnline = await aliceLog.first(within: .seconds(5)) { Self.isFriend($0, bobJID, online: true) }
        let aliceOnline = await bobLog.first(within: .seconds(5)) { Self.isFriend($0, aliceJID, online: true) }
        #expect(bobOnline != nil, "alice never saw bob as an online friend: ")
        if bobOnline == nil { print("xmpp-real: events: \(await aliceLog.events)") }
        #expect(aliceOnline != nil, "bob never saw alice as an online friend: ")
        if aliceOnline == nil { print("xmpp-real: events: \(await bobLog.events)") }
        #expect(await alice.friends.map(\.jid) == [bobJID])
        #expect(await bob.friends.map(\.jid) == [aliceJID])

        // XEP-0215: coturn's STUN and TURN with credentials coturn accepts.
        let services = try await alice.externalServices()
        print("xmpp-real: external services \(services.map { "\($0.type):\($0.host):\($0.port ?? 0)/\($0.transport ?? "-")" })")
        let stun = try #require(services.first { $0.type == "stun" })
        let turnTCP = try #require(services.first { $0.type == "turn" && $0.transport == "tcp" })
        #expect(stun.port == servers.turnPort)
        let username = try #require(turnTCP.username), password = try #require(turnTCP.password)
        let expiry = try #require(TimeInterval(username))
        #expect(expiry > Date().timeIntervalSince1970, "credential username \(username) is not a future expiry")
        let prober = DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: ProbeEndpoint(host: stun.host, port: stun.port ?? 3478),
            turnServer: ProbeEndpoint(host: turnTCP.host, port: turnTCP.port ?? 3478),
            credentials: STUNCredentials(username: username, password: password)))
        #expect(prober.run(.udpBinding).succeeded)
        let allocation = prober.run(.tcpAllocation)
        #expect(allocation.succeeded, "coturn refused Prosody's TURN credentials: \(allocation.detail)")
        // The same allocation with a wrong password fails: coturn really checks the secret.
        let wrong = DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: prober.configuration.stunServer, turnServer: prober.configuration.turnServer,
            credentials: STUNCredentials(username: username, password: "not" + password)))
        #expect(!wrong.run(.tcpAllocation).succeeded)

        // A stream killed under alice: her client reconnects and resumes by itself; bob does not
        // see her go offline (XEP-0198 hibernation), and the session still works.
        let beforeDrop = await aliceLog.count
        let bobBeforeDrop = await bobLog.count
        let dropAt = ContinuousClock.now
        await alice.dropConnection()
        let resumed = await aliceLog.first(after: beforeDrop, within: .seconds(10)) { event in
            if case .connected(_, true) = event { return true }
            return false
        }
        #expect(resumed != nil, "alice did not resume: ")
        if resumed == nil { print("xmpp-real: events: \(await aliceLog.events.suffix(6))") }
        if let resumed { print("xmpp-real: stream killed → resumed in \(resumed.at - dropAt)") }
        #expect(await alice.statistics.resumptions == 1)
        _ = try await alice.ping()
        let sawOffline = await bobLog.first(after: bobBeforeDrop, within: .milliseconds(100)) { Self.isFriend($0, aliceJID, online: false) }
        #expect(sawOffline == nil, "bob saw alice offline during her resumption")

        // bob logs out cleanly: alice sees him offline (measured).
        let beforeLogout = await aliceLog.count
        let logoutAt = ContinuousClock.now
        await bob.disconnect()
        let offline = await aliceLog.first(after: beforeLogout, within: .seconds(5)) { Self.isFriend($0, bobJID, online: false) }
        #expect(offline != nil, "alice never saw bob offline: ")
        if offline == nil { print("xmpp-real: events: \(await aliceLog.events.suffix(6))") }
        if let offline { print("xmpp-real: clean logout seen by the friend in \(offline.at - logoutAt)") }
        #expect(await alice.friends.first?.availability == .offline)
        #expect(await alice.statistics.droppedMessages == 0)
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
}
