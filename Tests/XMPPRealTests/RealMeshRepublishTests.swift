import Calls
import CallsChromium
import CallsJingle
import Foundation
import Testing
import XMPP
import XMPPClient

/// Replacing one peer connection of a mesh publication on real components (docs/peer-to-peer.md,
/// "Replacing a relayed peer connection"): a relayed call of three (Prosody and coturn outside,
/// Alice's and Bob's Chromiums in the root namespace, Carol's in `csrig-friends`), video on the
/// six links; then one of Alice's two publishing `RTCPeerConnection`s is closed in her browser
/// under the SDK (``LosableMediaEngine``). Only a new connection can bring that link back: her
/// publisher finds the connection gone and publishes again to that member in a new Jingle
/// session replacing the old one, whose subscription moves to it.
///
/// Asserted: exactly one of Alice's two outgoing links stops; its subscriber receives her video
/// again on a new peer connection and reconnects (`didReconnect`) as the same subscriber; her
/// other outgoing link and the four links between the others never stall for 2 s; nobody sees
/// `participantDidDisconnect`, `streamDestroyed` or a new `streamCreated`. The time to video
/// back is logged, not asserted (only within 30 s). Gated by CALLSCOPE_REAL=1 and
/// CALLSCOPE_REAL_NETNS=1 (Scripts/test.sh, under the rig lock).
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed))
struct RealMeshRepublishTests {
    static let alice = 0

    func log(_ line: String) { print("mesh-republish: \(line)") }

    @Test(.timeLimit(.minutes(2)))
    func aLostConnectionOfAMeshPublicationIsReplacedForItsMemberOnly() async throws {
        let namespace = try FriendsNamespace.create()
        await namespace.withThreeFriends(label: "mesh-republish") { clients, engines in
            let noted = engines.map(NotedMediaEngine.init)
            try await scenario(clients: clients, alice: LosableMediaEngine(noted[Self.alice]), noted: noted)
        }
        FriendsNamespace.remove()
    }

    private func scenario(clients: [XMPPClient], alice: LosableMediaEngine, noted: [NotedMediaEngine]) async throws {
        let start = ContinuousClock.now
        let engines: [any MediaEngine] = [alice, noted[1], noted[2]]
        let call = try await MeshCallWithVideo.start(clients: clients, engines: engines, noted: noted, since: start)
        log(String(format: "six links with video at %.1f s", RealRelayedReconnectTests.seconds(ContinuousClock.now - start)))
        // Each other member's next answered connection: the one a replacement would come on.
        let replaced = [1, 2].map { member in (member, VideoBytes(noted[member], answering: noted[member].answeringPeerConnections.count)) }
        try await Task.sleep(for: .seconds(1))

        // The break: Alice's last publishing peer connection closed in her browser, under the SDK.
        let broken = ContinuousClock.now
        let lost = try await alice.losePublication()
        log("lost alice's publishing connection \(lost.map(\.rawValue) ?? "none") of \(alice.publishingPeerConnections.map(\.rawValue))")

        // Video on either member's new connection (one is expected), then the stall of every link.
        var back: [Int: ContinuousClock.Instant] = [:]
        while back.isEmpty, ContinuousClock.now < broken + .seconds(30) {
            for (member, video) in replaced { back[member] = await video.growing(after: broken, within: .zero) }
            if back.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        try await Task.sleep(for: .seconds(3))
        for (member, video) in replaced where back[member] == nil { back[member] = await video.growing(after: broken, within: .zero) }
        func seconds(_ instant: ContinuousClock.Instant?) -> String {
            instant.map { String(format: "%.2f s", RealRelayedReconnectTests.seconds($0 - broken)) } ?? "never"
        }
        let settled = ContinuousClock.now
        for link in call.links {
            let gap = link.video.interruption(after: broken)
            log("\(link.name): " + (gap.map { "last before the gap \(seconds($0.lastBefore)), video again \(seconds($0.back))" } ?? "never stopped")
                + String(format: "; longest stall %.1f s", RealRelayedReconnectTests.seconds(MeshCallWithVideo.longestStall(link.video, after: broken))))
        }
        for (member, video) in replaced { log("\(MeshOfThree.names[member])'s new connection: video \(seconds(back[member])); \(video.samples(from: broken).prefix(12))") }
        for (name, recorder) in call.lifecycles where name.hasPrefix("alice") { log("\(name) subscriber \(recorder.timeline(from: broken))") }
        log("alice's publisher \(call.publisherEvents[Self.alice].timeline(from: broken))")
        log("alice's engine \(noted[Self.alice].notes(from: broken).prefix(30))")
        for (index, signaling) in call.signalings.enumerated() {
            log("\(MeshOfThree.names[index])'s signalling: replacement requests \(await signaling.replacementRequests), refused replacements \(await signaling.refusedReplacements), ignored restart signals \(await signaling.ignoredRestartSignals)")
        }

        // The link that stopped is the one to the member whose new connection carries video.
        let stopped = call.links.filter { $0.publisher == Self.alice && MeshCallWithVideo.longestStall($0.video, after: broken) >= .seconds(2) }
        #expect(stopped.count == 1, "one of alice's two links stopped: \(stopped.map(\.name))")
        guard let link = stopped.first else { return }
        let member = link.subscriber
        #expect(back[member] != nil, "\(MeshOfThree.names[member]) receives alice's video again on a new connection")
        for (other, _) in replaced where other != member {
            #expect(back[other] == nil, "\(MeshOfThree.names[other]) made no new connection")
        }
        let subscriberEvents = try #require(call.lifecycles.first { $0.name == link.name }?.events)
        let reconnected = await subscriberEvents.first(after: broken, within: .seconds(5)) { if case .didReconnect = $0 { true } else { false } }
        #expect(reconnected != nil, "\(link.name) subscriber reconnects: \(subscriberEvents.timeline(from: broken))")
        let memberSubscribers = await call.sessions[member].subscribers
        #expect(memberSubscribers.contains { $0 === call.subscribers[call.links.firstIndex { $0.name == link.name } ?? 0] }, "the same subscriber")
        for other in call.links where other.name != link.name {
            let stall = MeshCallWithVideo.longestStall(other.video, after: broken)
            #expect(stall < .seconds(2), "\(other.name) not interrupted (\(stall)) until \(seconds(settled)): \(other.video.samples(from: broken))")
        }
        let lostOrCreated = call.lostSomething(after: broken, orCreated: true)
        #expect(lostOrCreated.isEmpty, "no stream or participant lost or created anew: \(lostOrCreated)")
        for session in call.sessions.reversed() { await session.disconnect() }
    }
}
