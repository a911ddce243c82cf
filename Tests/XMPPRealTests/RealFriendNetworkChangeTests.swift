import CallsChromium
import Connectivity
import ConnectivityProbe
import FriendConnections
import Foundation
import Friends
import Testing
import XMPP
import XMPPClient

/// Issue 24's network change on real components: Alice (root namespace) and Bob (in
/// `csrig-friends`) are friends with a friend connection; Bob's namespace moves to another
/// subnet (its address removed, a new one added, the default route through the new subnet) and
/// his XMPP stream is cut at the same moment, as a phone's TCP connection dies with its network.
/// Bob's stream resumes (XEP-0198), Alice never sees him offline, Bob probes his
/// discoverability again by himself, and the friend connection comes back by an ICE restart on
/// the same peer connection (no new connection, no `connectionFailed`). Then the XMPP server
/// becomes unreachable for Bob: he reports `offline` after
/// ``FriendManagerConfiguration/offlineAfterStreamLoss`` and his level again once it is back.
/// Gated by CALLSCOPE_REAL=1 and CALLSCOPE_REAL_NETNS=1 (Scripts/test.sh, under the rig lock).
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed))
struct RealFriendNetworkChangeTests {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)
    static let xmppRuleComment = "csrig-friends-xmpp-rule"

    func log(_ line: String) { print("friends-netchange: \(line)") }

    @Test(.timeLimit(.minutes(3)))
    func friendConnectionAndStreamSurviveAnAddressChange() async throws {
        let namespace = try FriendsNamespace.create()
        try namespace.prepareSecondSubnet()
        await namespace.withAliceAndBob(label: "friends-netchange", beforeStop: { Self.unblockXMPP(port: $0.httpPort) }) { servers, alice, bob in
            try await scenario(servers, namespace: namespace, aliceEngine: alice, bobEngine: bob)
        }
        _ = try? FriendsNamespace.run(["/usr/sbin/ip", "addr", "del", FriendsNamespace.movedRootAddress + "/24", "dev", FriendsNamespace.rootInterface])
        FriendsNamespace.remove()
    }

    private func scenario(_ servers: ProsodyServers, namespace: FriendsNamespace, aliceEngine: ChromiumMediaEngine, bobEngine: ChromiumMediaEngine) async throws {
        let alice = servers.client("alice"), bob = servers.client("bob")
        let (aliceLog, bobLog) = try await connectAsFriends(alice, Self.alice, bob, Self.bob)

        // Bob's prober runs in his namespace and watches its addresses; rounds every 2 s, as in
        // RealFriendManagerTests.
        let probeTimes = ProbeTimes()
        let bobConfiguration = FriendManagerConfiguration(discoverabilityInterval: .seconds(2)) {
            FriendsNamespaceWatchingProber(inner: FriendsNamespaceProber(prober: DiscoverabilityProber(configuration: $0)), times: probeTimes)
        }
        let aliceManager = FriendManager(client: alice, engine: aliceEngine, configuration: FriendManagerConfiguration(discoverabilityInterval: .seconds(2)))
        let bobManager = FriendManager(client: bob, engine: bobEngine, configuration: bobConfiguration)
        let aliceEvents = FriendEventLog.recording(aliceManager), bobEvents = FriendEventLog.recording(bobManager)
        let origin = ContinuousClock.now

        // 1. Connected directly (10.201.5.2 ↔ Alice), Bob discoverable over UDP.
        try await aliceManager.start()
        try await bobManager.start()
        let aliceDirect = await aliceEvents.first(after: origin, within: .seconds(20), where: FriendEventLog.paths(Self.bob) { $0.contains(.udpDirect) })
        let bobDirect = await bobEvents.first(after: origin, within: .seconds(20), where: FriendEventLog.paths(Self.alice) { $0.contains(.udpDirect) })
        let bobUDP = await bobEvents.first(after: origin, within: .seconds(10), where: FriendEventLog.discoverable(.udp))
        try #require(aliceDirect != nil && bobDirect != nil && bobUDP != nil,
                     "connected before the change: alice \(aliceEvents.timeline(from: origin)), bob \(bobEvents.timeline(from: origin))")
        let before = (alice: await aliceManager.statistics, bob: await bobManager.statistics)
        // Let the stats settle so that what follows is the change's doing.
        try await Task.sleep(for: .seconds(1))

        // 2. The network change: Bob's address moves to 10.201.6.2 and his stream is cut.
        let aliceLogMark = await aliceLog.count, bobLogMark = await bobLog.count
        let change = ContinuousClock.now
        try namespace.changeAddress()
        await bob.dropConnection()
        log("bob's addresses after the change: \(try namespace.innerAddresses())")
        // When Alice (the initiator: her JID sorts first) started her ICE restart.
        let restartWatch = Task { [aliceManager] () -> ContinuousClock.Instant? in
            while !Task.isCancelled {
                if await aliceManager.statistics.iceRestarts > before.alice.iceRestarts { return .now }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
        let resumed = await bobLog.first(after: bobLogMark, within: .seconds(10)) { if case .connected = $0 { true } else { false } }
        let probed = await waitFor(.seconds(10)) { probeTimes.first(after: change) }
        // Paths after the change: when they went empty (the old pair stopped answering) and came
        // back. Paths that never went empty report no change: then read them at the end.
        let bobEmpty = await bobEvents.first(after: change, within: .seconds(15), where: FriendEventLog.paths(Self.alice) { $0.isEmpty })
        let aliceEmpty = await aliceEvents.first(after: change, within: .seconds(15), where: FriendEventLog.paths(Self.bob) { $0.isEmpty })
        let bobBack = await bobEvents.first(after: bobEmpty ?? change, within: .seconds(30), where: FriendEventLog.paths(Self.alice) { !$0.isEmpty })
        let aliceBack = await aliceEvents.first(after: aliceEmpty ?? change, within: .seconds(30), where: FriendEventLog.paths(Self.bob) { !$0.isEmpty })
        try await Task.sleep(for: .seconds(1))
        restartWatch.cancel()
        let restarted = await restartWatch.value
        let bobPaths = await bobManager.paths(of: Self.alice), alicePaths = await aliceManager.paths(of: Self.bob)
        let after = (alice: await aliceManager.statistics, bob: await bobManager.statistics)
        let resumedFlag: Bool? = if case .connected(_, let flag)? = resumed?.event { flag } else { nil }
        log("measured change: bob's stream back \(seconds(resumed?.at, from: change)) (resumed: \(resumedFlag.map(String.init) ?? "-")), bob probed \(seconds(probed, from: change)), "
            + "alice restarted ICE \(seconds(restarted, from: change)), "
            + "bob's paths empty \(seconds(bobEmpty, from: change)) back \(seconds(bobBack, from: change)) now \(bobPaths), "
            + "alice's empty \(seconds(aliceEmpty, from: change)) back \(seconds(aliceBack, from: change)) now \(alicePaths)")
        log("ice restarts alice \(after.alice.iceRestarts - before.alice.iceRestarts), bob \(after.bob.iceRestarts - before.bob.iceRestarts); "
            + "connections opened alice \(after.alice.connectionsOpened - before.alice.connectionsOpened), bob \(after.bob.connectionsOpened - before.bob.connectionsOpened)")
        let bobRecent = await bobLog.events.suffix(4)
        #expect(resumedFlag == true, "bob's stream resumed (XEP-0198): \(bobRecent)")
        #expect(probed.map { $0 - change <= .seconds(3) } == true, "bob probed again within 3 s by himself")
        let aliceSawBobOffline = await aliceLog.entries.dropFirst(aliceLogMark).contains { entry in
            if case .roster(.friendChanged(let friend)) = entry.event { friend.jid == Self.bob && friend.availability == .offline } else { false }
        }
        #expect(!aliceSawBobOffline, "alice never saw bob go offline")
        #expect(!bobPaths.isEmpty && !alicePaths.isEmpty, "paths after the change: bob \(bobEvents.timeline(from: origin)), alice \(aliceEvents.timeline(from: origin))")
        #expect(bobEmpty == nil || bobBack.map { $0 - change <= .seconds(10) } == true, "bob's path back within 10 s: \(bobEvents.timeline(from: origin))")
        #expect(aliceEmpty == nil || aliceBack.map { $0 - change <= .seconds(10) } == true, "alice's path back within 10 s: \(aliceEvents.timeline(from: origin))")
        #expect(after.alice.iceRestarts > before.alice.iceRestarts, "alice (the initiator) restarted ICE")
        #expect(restarted.map { $0 - change <= .seconds(3) } == true, "at bob's request, not after ICE gave up on the old pair")
        #expect(after.alice.connectionsOpened == before.alice.connectionsOpened && after.bob.connectionsOpened == before.bob.connectionsOpened,
                "the same peer connection on both sides: alice \(aliceEvents.timeline(from: origin)), bob \(bobEvents.timeline(from: origin))")
        #expect(!bobEvents.entries.contains { if case .connectionFailed = $0.event { $0.at > change } else { false } }, "no connectionFailed on bob's side")
        #expect(!aliceEvents.entries.contains { if case .connectionFailed = $0.event { $0.at > change } else { false } }, "no connectionFailed on alice's side")
        #expect(await bobManager.discoverability == .udp)

        // 3. The XMPP server unreachable for good (connections to its port refused): Bob reports
        //    offline after offlineAfterStreamLoss, and his level again once it is reachable.
        try Self.blockXMPP(port: servers.httpPort)
        let cut = ContinuousClock.now
        await bob.dropConnection()
        let bobOffline = await bobEvents.first(after: cut, within: .seconds(15), where: FriendEventLog.discoverable(.offline))
        let grace = bobConfiguration.offlineAfterStreamLoss
        log("measured stream down: bob offline \(seconds(bobOffline, from: cut)) (after \(grace))")
        #expect(bobOffline.map { $0 - cut >= grace && $0 - cut <= grace + .seconds(2) } == true, "offline after \(grace): \(bobEvents.timeline(from: origin))")
        let reachable = ContinuousClock.now
        Self.unblockXMPP(port: servers.httpPort)
        let bobUDPAgain = await bobEvents.first(after: reachable, within: .seconds(15), where: FriendEventLog.discoverable(.udp))
        log("measured stream back: bob discoverable udp \(seconds(bobUDPAgain, from: reachable)) after the server became reachable")
        #expect(bobUDPAgain != nil, "udp again: \(bobEvents.timeline(from: origin))")
        log("alice's timeline \(aliceEvents.timeline(from: origin))")
        log("bob's timeline \(bobEvents.timeline(from: origin))")
        log("statistics alice \(await aliceManager.statistics), bob \(await bobManager.statistics)")

        await aliceManager.stop()
        await bobManager.stop()
        await alice.disconnect()
        await bob.disconnect()
    }

    /// Refuses new TCP connections to Prosody's port (a reset, so reconnection attempts fail at
    /// once) on loopback; the rule carries a comment so that it is removed by it.
    static func blockXMPP(port: UInt16) throws {
        try FriendsNamespace.run(["/usr/sbin/iptables", "-w", "5", "-I", "INPUT", "-i", "lo", "-p", "tcp", "--dport", "\(port)", "--syn",
                                  "-m", "comment", "--comment", xmppRuleComment, "-j", "REJECT", "--reject-with", "tcp-reset"])
    }

    static func unblockXMPP(port: UInt16) {
        while (try? FriendsNamespace.run(["/usr/sbin/iptables", "-w", "5", "-D", "INPUT", "-i", "lo", "-p", "tcp", "--dport", "\(port)", "--syn",
                                          "-m", "comment", "--comment", xmppRuleComment, "-j", "REJECT", "--reject-with", "tcp-reset"])) != nil {}
    }

    private func waitFor(_ timeout: Duration, _ value: () -> ContinuousClock.Instant?) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = value() { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return value()
    }

    private func seconds(_ instant: ContinuousClock.Instant?, from start: ContinuousClock.Instant) -> String {
        instant.map { String(format: "%.2f s", ($0 - start).seconds) } ?? "never"
    }
}
