import Calls
import CallsChromium
import CallsJingle
import Foundation
import Observability
import Testing
import XMPP
import XMPPClient

/// Everything one async sequence yielded, with when, for the checks of a real test.
final class RelayedCallRecorder<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Element] = []
    private var task: Task<Void, Never>?

    init(_ sequence: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in sequence { self?.append(element) }
        }
    }

    deinit { task?.cancel() }

    private func append(_ element: Element) { lock.withLock { stored.append(element) } }

    var all: [Element] { lock.withLock { stored } }

    /// The first element matching `predicate`, waiting up to `timeout` for it.
    func wait(_ timeout: Duration, _ predicate: (Element) -> Bool) async -> Element? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = all.first(where: predicate) { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A relayed call of two friends on real components: Prosody (XMPP, XEP-0353 and Jingle
/// between the clients) and coturn started by the test, each side a `CallSession` over
/// `JingleCallSignaling` with its own headless Chromium; media flows between the two browsers.
/// Gated by CALLSCOPE_REAL=1 (Scripts/test.sh, under the rig lock); no network namespace.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealRelayedCallTests {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)

    func log(_ line: String) { print("relayed-real: \(line)") }

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
        let start = ContinuousClock.now
        func elapsed() -> String { String(format: "%.2f s", Double((ContinuousClock.now - start).components.attoseconds) / 1e18 + Double((ContinuousClock.now - start).components.seconds)) }
        let aliceXMPP = RelayedCallRecorder(alice.events()), bobXMPP = RelayedCallRecorder(bob.events())
        try await alice.connect()
        try await bob.connect()
        try await alice.addFriend(Self.bob)
        _ = await bobXMPP.wait(.seconds(5)) { $0 == .roster(.subscriptionRequest(from: Self.alice)) }
        try await bob.approveFriendRequest(from: Self.alice)
        let friends = await aliceXMPP.wait(.seconds(5)) {
            if case .roster(.friendChanged(let friend)) = $0 { friend.jid == Self.bob && friend.availability != .offline }
            else if case .roster(.friendAdded(let friend)) = $0 { friend.jid == Self.bob && friend.availability != .offline } else { false }
        }
        try #require(friends != nil, "alice and bob became friends")
        log("friends at \(elapsed())")

        let aliceSession = CallSession(signaling: JingleCallSignaling(client: alice, friend: Self.bob, role: .caller), engine: aliceEngine,
                                       clock: ContinuousClock(), wallClock: Date.init)
        let bobSession = CallSession(signaling: JingleCallSignaling(client: bob, friend: Self.alice, role: .callee), engine: bobEngine,
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

        // Both publish; a relayed publish returns once the friend subscribed (its session-accept).
        let alicePublisher = CallPublisher(), bobPublisher = CallPublisher()
        let alicePublisherStats = RelayedCallRecorder(alicePublisher.statsMonitor.events)
        let bobPublisherStats = RelayedCallRecorder(bobPublisher.statsMonitor.events)
        let alicePublishing = Task { try await aliceSession.publish(alicePublisher) }
        let bobPublishing = Task { try await bobSession.publish(bobPublisher) }

        let bobSeesAlice = await bobEvents.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
        let aliceSeesBob = await aliceEvents.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == bobID } else { false } }
        log("streams created at \(elapsed())")
        guard case .streamCreated(let aliceStream) = try #require(bobSeesAlice, "bob gets streamCreated for alice's stream"),
              case .streamCreated(let bobStream) = try #require(aliceSeesBob, "alice gets streamCreated for bob's stream") else { return }
        #expect(aliceStream.hasAudio && aliceStream.hasVideo)

        let bobSubscriber = CallSubscriber(stream: aliceStream), aliceSubscriber = CallSubscriber(stream: bobStream)
        let bobLifecycle = RelayedCallRecorder(bobSubscriber.events), aliceLifecycle = RelayedCallRecorder(aliceSubscriber.events)
        let bobStats = RelayedCallRecorder(bobSubscriber.statsMonitor.events)
        try await bobSession.subscribe(bobSubscriber)
        try await aliceSession.subscribe(aliceSubscriber)
        try await alicePublishing.value
        try await bobPublishing.value
        log("published at \(elapsed())")
        #expect(await bobLifecycle.wait(.seconds(20)) { $0 == .didConnect(aliceStream) } != nil, "bob's subscriber connects")
        #expect(await aliceLifecycle.wait(.seconds(20)) { $0 == .didConnect(bobStream) } != nil, "alice's subscriber connects")
        log("subscribers connected at \(elapsed())")

        // Video bytes received by bob's subscriber grow, sampled by the SDK's own stats.
        func videoBytes() -> [UInt64] {
            bobStats.all.compactMap { if case .subscriberVideoNetworkStatsUpdated(let stats) = $0.event { stats.videoBytesReceived } else { nil } }
        }
        let growing = await bobStats.wait(.seconds(15)) { _ in
            let bytes = videoBytes()
            return bytes.count >= 3 && bytes[bytes.count - 3] > 0 && bytes.last! > bytes[bytes.count - 3]
        }
        #expect(growing != nil, "bob's received video bytes grow: \(videoBytes())")
        log("bob's video bytes \(videoBytes().suffix(4)) at \(elapsed())")

        // Each publisher's arrays: one element, its media connection to the friend, named by the
        // friend's connection and the subscription's id (the Jingle sid), not the routed empty ids.
        for (name, stats, peer) in [("alice", alicePublisherStats, bobID), ("bob", bobPublisherStats, aliceID)] {
            let links = stats.all.compactMap { if case .publisherMediaLinkStatsUpdated(let links) = $0.event { links } else { nil } }
            let videos = stats.all.compactMap { if case .publisherVideoNetworkStatsUpdated(let videos) = $0.event { videos } else { nil } }
            log("\(name)'s publisher media links (last of \(links.count)): \(links.last.map { $0.map { "\($0.connectionId) / \($0.subscriberId)" } } ?? [])")
            let last = try #require(links.last, "\(name)'s publisher reports its link")
            #expect(last.count == 1 && last[0].connectionId == peer && !last[0].subscriberId.isEmpty && last[0].subscriberId != peer,
                    "\(name)'s one element names \(peer) and the subscription: \(last)")
            #expect(videos.last?.map(\.connectionId) == [peer], "\(name)'s video array: one element for \(peer)")
        }

        // Bob's subscriber takes alice's side from its own link: her send rate from her RTCP
        // sender reports, checked against her publisher's own bytes sent (video + audio, over
        // its last two seconds), and a clean loopback link is degraded on neither side.
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
}
