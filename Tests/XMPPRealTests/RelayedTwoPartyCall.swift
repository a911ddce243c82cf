import Calls
import CallsChromium
import CallsJingle
import Foundation
import Observability
import Testing
import XMPP
import XMPPClient

/// A relayed call between two friends, the part the real tests share (RealRelayedCallTests on
/// one Prosody, RealFederatedCallTests across two federated ones): Alice and Bob become
/// friends, each joins a `CallSession` over `JingleCallSignaling` with its own headless
/// Chromium, both publish and subscribe, video flows both ways, each publisher's stats name the
/// other, then Bob leaves and Alice sees him go. The clients are connected by the caller.
struct RelayedTwoPartyCall {
    /// One side: its XMPP client (connected), its bare JID and its browser.
    struct Party {
        let client: XMPPClient
        let jid: JID
        let engine: ChromiumMediaEngine
    }

    let alice: Party
    let bob: Party
    let log: @Sendable (String) -> Void
    private let start = ContinuousClock.now

    init(alice: Party, bob: Party, log: @escaping @Sendable (String) -> Void) {
        self.alice = alice
        self.bob = bob
        self.log = log
    }

    private func elapsed() -> String { String(format: "%.2f s", (ContinuousClock.now - start).seconds) }

    /// The whole call: friends, join, publish, subscribe, media both ways, stats, Bob leaves.
    func run() async throws {
        try await befriend()
        let aliceSession = CallSession(signaling: JingleCallSignaling(client: alice.client, friend: bob.jid, role: .caller), engine: alice.engine,
                                       clock: ContinuousClock(), wallClock: Date.init)
        let bobSession = CallSession(signaling: JingleCallSignaling(client: bob.client, friend: alice.jid, role: .callee), engine: bob.engine,
                                     clock: ContinuousClock(), wallClock: Date.init)
        let aliceEvents = RelayedCallRecorder(aliceSession.events), bobEvents = RelayedCallRecorder(bobSession.events)
        // XEP-0353: each join returns once the other device is there.
        async let aliceJoined: Void = aliceSession.connect(display: "alice")
        async let bobJoined: Void = bobSession.connect(display: "bob")
        _ = try await (aliceJoined, bobJoined)
        let aliceID = try #require(await aliceSession.connection?.connectionId)
        let bobID = try #require(await bobSession.connection?.connectionId)
        log("joined at \(elapsed()): \(aliceID), \(bobID)")
        #expect(aliceEvents.all.contains { if case .participantDidConnect(let p) = $0 { p.connectionId == bobID } else { false } }, "alice sees bob in the call")
        #expect(bobEvents.all.contains { if case .participantDidConnect(let p) = $0 { p.connectionId == aliceID } else { false } }, "bob sees alice in the call")

        try await publishAndSubscribe(alice: (aliceSession, aliceEvents, aliceID), bob: (bobSession, bobEvents, bobID))

        log("bob's paths to alice: \(await bobSession.participants.first { $0.connectionId == aliceID }.map { String(describing: $0.paths) } ?? "none")")
        // Bob leaves: alice sees his stream destroyed and him gone.
        await bobSession.disconnect()
        let left = ContinuousClock.now
        let destroyed = await aliceEvents.wait(.seconds(10)) { if case .streamDestroyed(let s, _) = $0 { s.streamId == bobID } else { false } }
        let disconnected = await aliceEvents.wait(.seconds(10)) { if case .participantDidDisconnect(let p) = $0 { p.connectionId == bobID } else { false } }
        log("after bob left: streamDestroyed \(destroyed != nil), participantDidDisconnect \(disconnected != nil) within \(ContinuousClock.now - left)")
        #expect(destroyed != nil, "alice gets streamDestroyed for bob's stream")
        #expect(disconnected != nil, "alice gets participantDidDisconnect for bob")
        await aliceSession.disconnect()
        log("done at \(elapsed())")
    }

    /// Alice asks, Bob approves; returns once Alice sees Bob online as her friend.
    private func befriend() async throws {
        let aliceXMPP = RelayedCallRecorder(alice.client.events()), bobXMPP = RelayedCallRecorder(bob.client.events())
        try await alice.client.addFriend(bob.jid)
        let asked = await bobXMPP.wait(.seconds(15)) { $0 == .roster(.subscriptionRequest(from: alice.jid)) }
        try #require(asked != nil, "bob got alice's friend request")
        try await bob.client.approveFriendRequest(from: alice.jid)
        let friends = await aliceXMPP.wait(.seconds(10)) { [bob] in
            if case .roster(.friendChanged(let friend)) = $0 { friend.jid == bob.jid && friend.availability != .offline }
            else if case .roster(.friendAdded(let friend)) = $0 { friend.jid == bob.jid && friend.availability != .offline } else { false }
        }
        try #require(friends != nil, "alice and bob became friends")
        log("friends at \(elapsed())")
    }

    private typealias Side = (session: CallSession, events: RelayedCallRecorder<CallSessionEvent>, id: String)

    private func publishAndSubscribe(alice: Side, bob: Side) async throws {
        // Both publish; a relayed publish returns once the friend subscribed (its session-accept).
        let alicePublisher = CallPublisher(), bobPublisher = CallPublisher()
        let alicePublisherStats = RelayedCallRecorder(alicePublisher.statsMonitor.events)
        let bobPublisherStats = RelayedCallRecorder(bobPublisher.statsMonitor.events)
        let alicePublishing = Task { try await alice.session.publish(alicePublisher) }
        let bobPublishing = Task { try await bob.session.publish(bobPublisher) }

        let bobSeesAlice = await bob.events.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == alice.id } else { false } }
        let aliceSeesBob = await alice.events.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == bob.id } else { false } }
        log("streams created at \(elapsed())")
        guard case .streamCreated(let aliceStream) = try #require(bobSeesAlice, "bob gets streamCreated for alice's stream"),
              case .streamCreated(let bobStream) = try #require(aliceSeesBob, "alice gets streamCreated for bob's stream") else { return }
        #expect(aliceStream.hasAudio && aliceStream.hasVideo)

        let bobSubscriber = CallSubscriber(stream: aliceStream), aliceSubscriber = CallSubscriber(stream: bobStream)
        let bobLifecycle = RelayedCallRecorder(bobSubscriber.events), aliceLifecycle = RelayedCallRecorder(aliceSubscriber.events)
        let bobStats = RelayedCallRecorder(bobSubscriber.statsMonitor.events), aliceStats = RelayedCallRecorder(aliceSubscriber.statsMonitor.events)
        try await bob.session.subscribe(bobSubscriber)
        try await alice.session.subscribe(aliceSubscriber)
        try await alicePublishing.value
        try await bobPublishing.value
        log("published at \(elapsed())")
        #expect(await bobLifecycle.wait(.seconds(20)) { $0 == .didConnect(aliceStream) } != nil, "bob's subscriber connects")
        #expect(await aliceLifecycle.wait(.seconds(20)) { $0 == .didConnect(bobStream) } != nil, "alice's subscriber connects")
        log("subscribers connected at \(elapsed())")

        // Video bytes received by each subscriber grow, sampled by the SDK's own stats.
        for (name, stats) in [("bob", bobStats), ("alice", aliceStats)] {
            let growing = await stats.wait(.seconds(15)) { _ in Self.growing(Self.videoBytes(stats)) }
            #expect(growing != nil, "\(name)'s received video bytes grow: \(Self.videoBytes(stats))")
            log("\(name)'s video bytes \(Self.videoBytes(stats).suffix(4)) at \(elapsed())")
        }

        // Each publisher's arrays: one element, its media connection to the friend, named by the
        // friend's connection and the subscription's id (the Jingle sid), not the routed empty ids.
        for (name, stats, peer) in [("alice", alicePublisherStats, bob.id), ("bob", bobPublisherStats, alice.id)] {
            let links = stats.all.compactMap { if case .publisherMediaLinkStatsUpdated(let links) = $0.event { links } else { nil } }
            let videos = stats.all.compactMap { if case .publisherVideoNetworkStatsUpdated(let videos) = $0.event { videos } else { nil } }
            log("\(name)'s publisher media links (last of \(links.count)): \(links.last.map { $0.map { "\($0.connectionId) / \($0.subscriberId)" } } ?? [])")
            let last = try #require(links.last, "\(name)'s publisher reports its link")
            #expect(last.count == 1 && last[0].connectionId == peer && !last[0].subscriberId.isEmpty && last[0].subscriberId != peer,
                    "\(name)'s one element names \(peer) and the subscription: \(last)")
            #expect(videos.last?.map(\.connectionId) == [peer], "\(name)'s video array: one element for \(peer)")
        }

        try await checkRemoteSide(bobStats: bobStats, alicePublisherStats: alicePublisherStats)
    }

    /// Bob's subscriber takes alice's side from its own link: her send rate from her RTCP
    /// sender reports, checked against her publisher's own bytes sent (video + audio, over its
    /// last two seconds), and a clean loopback link is degraded on neither side.
    private func checkRemoteSide(bobStats: RelayedCallRecorder<StatsCallback>, alicePublisherStats: RelayedCallRecorder<StatsCallback>) async throws {
        func subscriberLinks() -> [SubscriberMediaLinkStats] {
            bobStats.all.compactMap { if case .subscriberMediaLinkStatsUpdated(let link) = $0.event { link } else { nil } }
        }
        _ = await bobStats.wait(.seconds(10)) { _ in
            subscriberLinks().last.map { $0.remotePublisherTransport.networkCondition != .unknown && $0.remotePublisherTransport.connectionEstimatedBandwidth > 0 } ?? false
        }
        let link = try #require(subscriberLinks().last, "bob's subscriber reports its link")
        let remote = link.remotePublisherTransport
        log("bob's subscriber link: own \(link.transport.networkCondition) (\(link.transport.networkConditionReason)), alice's side \(remote.networkCondition) at \(Int(remote.connectionEstimatedBandwidth)) bps, source \(link.networkDegradationSource)")
        #expect(remote.networkCondition != .unknown && !remote.networkCondition.isDegraded, "alice's side is known and healthy: \(remote)")
        #expect(link.networkDegradationSource == .none)
        let sent = alicePublisherStats.all.compactMap { callback -> (time: Double, bytes: Double)? in
            guard case .publisherVideoNetworkStatsUpdated(let videos) = callback.event, let video = videos.first else { return nil }
            let audio = alicePublisherStats.all.last { if case .publisherAudioNetworkStatsUpdated(let audios) = $0.event { audios.first?.timestamp ?? 0 <= video.timestamp } else { false } }
            guard case .publisherAudioNetworkStatsUpdated(let audios)? = audio?.event else { return nil }
            return (video.timestamp, Double(video.videoBytesSent + (audios.first?.audioBytesSent ?? 0)))
        }
        if sent.count >= 3, let last = sent.last {
            let earlier = sent[sent.count - 3]
            let aliceRate = (last.bytes - earlier.bytes) * 8 * 1000 / (last.time - earlier.time)
            log("alice's publisher sent \(Int(aliceRate)) bps; bob's subscriber reads \(Int(remote.connectionEstimatedBandwidth)) bps from her sender reports")
            #expect(remote.connectionEstimatedBandwidth > aliceRate / 2 && remote.connectionEstimatedBandwidth < aliceRate * 2,
                    "the send rate from alice's sender reports (\(remote.connectionEstimatedBandwidth)) is within a factor 2 of what her publisher sent (\(aliceRate))")
        } else {
            Issue.record("alice's publisher reported \(sent.count) samples with video and audio")
        }
    }

    private static func videoBytes(_ stats: RelayedCallRecorder<StatsCallback>) -> [UInt64] {
        stats.all.compactMap { if case .subscriberVideoNetworkStatsUpdated(let stats) = $0.event { stats.videoBytesReceived } else { nil } }
    }

    /// Three samples or more, the last above the one two samples before, which is above zero.
    private static func growing(_ bytes: [UInt64]) -> Bool {
        bytes.count >= 3 && bytes[bytes.count - 3] > 0 && bytes.last! > bytes[bytes.count - 3]
    }
}
