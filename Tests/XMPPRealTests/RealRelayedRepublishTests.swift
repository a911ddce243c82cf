import Calls
import CallsChromium
import CallsJingle
import Foundation
import Observability
import Testing
import XMPP
import XMPPClient

/// Replacing a relayed peer connection on real components (docs/peer-to-peer.md, "Replacing a
/// relayed peer connection"): a relayed call of two friends on loopback (Prosody and coturn
/// started by the test, a headless Chromium each), video both ways; then Alice's publishing
/// `RTCPeerConnection` is closed in her browser under the SDK (``LosableMediaEngine``): what a
/// platform WebRTC stack that tears a connection down under the app looks like. No ICE restart
/// can bring it back (the engine can make no offer on it); only a new connection can. Bob's
/// subscriber sees the media stop and asks for a restart, Alice's publisher finds its
/// connection gone and publishes again in a new Jingle session replacing the old one, Bob's
/// subscription moves to it. Asserted: Bob receives Alice's video again on a new peer connection,
/// his subscriber reconnects (`didReconnect`) as the same subscriber of the same stream, and
/// neither side sees `participantDidDisconnect`, `streamDestroyed` or a new `streamCreated`.
/// The time from the break to video back is logged, not asserted (only within 30 s).
/// Gated by CALLSCOPE_REAL=1 (Scripts/test.sh, under the rig lock); no network namespace.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealRelayedRepublishTests {

    func log(_ line: String) { print("relayed-republish: \(line)") }

    @Test(.timeLimit(.minutes(2)))
    func aLostPublishingConnectionIsReplacedAsTheSameStream() async throws {
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        var clients: [XMPPClient] = []
        do {
            servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"])
            let options = ChromiumOptions(fakeCameraFrameRate: 15)
            engines.append(try await ChromiumMediaEngine.launch(options))
            engines.append(try await ChromiumMediaEngine.launch(options))
            clients = [try #require(servers).client("alice"), try #require(servers).client("bob")]
            let aliceNoted = NotedMediaEngine(engines[0])
            try await scenario(alice: clients[0], bob: clients[1], aliceEngine: LosableMediaEngine(aliceNoted), aliceNoted: aliceNoted,
                               bobEngine: NotedMediaEngine(engines[1]))
        } catch {
            Issue.record("relayed-republish: \(error)")
        }
        for client in clients { await client.disconnect() }
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
    }

    private func scenario(alice: XMPPClient, bob: XMPPClient, aliceEngine: LosableMediaEngine, aliceNoted: NotedMediaEngine,
                          bobEngine: NotedMediaEngine) async throws {
        let call = try await JoinedCallOfTwo.join(alice: alice, bob: bob, aliceEngine: aliceEngine, bobEngine: bobEngine)
        let (aliceSignaling, bobSignaling) = (call.aliceSignaling, call.bobSignaling)
        let (aliceSession, bobSession, aliceEvents, bobEvents) = (call.aliceSession, call.bobSession, call.aliceEvents, call.bobEvents)
        let (aliceID, bobID, origin) = (call.aliceID, call.bobID, call.origin)

        let alicePublisher = CallPublisher(), bobPublisher = CallPublisher()
        let alicePublisherEvents = TimedRecorder(alicePublisher.events)
        let alicePublisherStats = TimedRecorder(alicePublisher.statsMonitor.events)
        let alicePublishing = Task { try await aliceSession.publish(alicePublisher) }
        let bobPublishing = Task { try await bobSession.publish(bobPublisher) }
        let aliceStreamAtBob = await bobEvents.first(after: origin, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
        let bobStreamAtAlice = await aliceEvents.first(after: origin, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == bobID } else { false } }
        guard case .streamCreated(let aliceStream)? = aliceStreamAtBob?.event, case .streamCreated(let bobStream)? = bobStreamAtAlice?.event else {
            Issue.record("streams created: alice \(aliceEvents.timeline(from: origin)), bob \(bobEvents.timeline(from: origin))")
            return
        }
        let bobSubscriber = CallSubscriber(stream: aliceStream), aliceSubscriber = CallSubscriber(stream: bobStream)
        let bobLifecycle = TimedRecorder(bobSubscriber.events)
        // Bob's first subscription's connection, and the one that replaces it.
        let bobVideo = VideoBytes(bobEngine, answering: 0), bobVideoReplaced = VideoBytes(bobEngine, answering: 1)
        let aliceVideo = VideoBytes(aliceNoted, answering: 0)
        try await bobSession.subscribe(bobSubscriber)
        try await aliceSession.subscribe(aliceSubscriber)
        try await alicePublishing.value
        try await bobPublishing.value
        let bobFlowing = await bobVideo.growing(after: origin, within: .seconds(15))
        let aliceFlowing = await aliceVideo.growing(after: origin, within: .seconds(15))
        try #require(bobFlowing != nil && aliceFlowing != nil, "media both ways first: bob \(bobVideo.samples.suffix(4)), alice \(aliceVideo.samples.suffix(4))")
        log("setup: video both ways \(seconds(bobFlowing, from: origin)) after the join")
        let firstSid = await aliceSignaling.publicationSubscriber()?.subscriberId
        try await Task.sleep(for: .seconds(1))

        // The break: Alice's publishing peer connection closed in her browser, under the SDK.
        let broken = ContinuousClock.now
        let lost = try await aliceEngine.losePublication()
        log("lost alice's publishing connection \(lost.map(\.rawValue) ?? "none")")

        let back = await bobVideoReplaced.growing(after: broken, within: .seconds(30))
        let reconnected = await bobLifecycle.first(after: broken, within: .seconds(10)) { $0 == .didReconnect(aliceStream) }
        let newSid = await aliceSignaling.publicationSubscriber()?.subscriberId
        log("measured: bob's video on the new connection \(seconds(back, from: broken)) after the break; bob's subscriber didReconnect \(seconds(reconnected?.at, from: broken))")
        log("bob's first connection \(bobVideo.samples(from: broken).prefix(12)); replaced \(bobVideoReplaced.samples(from: broken).prefix(12))")
        log("bob's subscriber \(bobLifecycle.timeline(from: broken)); alice's publisher \(alicePublisherEvents.timeline(from: broken))")
        log("alice's publication session \(firstSid ?? "-") -> \(newSid ?? "-"); answering connections at bob \(bobEngine.answeringPeerConnections.map(\.rawValue)), publishing at alice \(aliceEngine.publishingPeerConnections.map(\.rawValue))")
        log("alice's engine \(aliceNoted.notes(from: broken).prefix(30))")
        log("bob's engine \(bobEngine.notes(from: broken).prefix(30))")
        for (name, signaling) in [("alice", aliceSignaling), ("bob", bobSignaling)] {
            log("\(name)'s signalling: replacement requests \(await signaling.replacementRequests), refused replacements \(await signaling.refusedReplacements), ignored restart signals \(await signaling.ignoredRestartSignals)")
        }

        #expect(back != nil, "bob receives alice's video again on a new connection: \(bobVideoReplaced.samples(from: broken))")
        #expect(reconnected != nil, "bob's subscriber reconnects: \(bobLifecycle.timeline(from: broken))")
        #expect(newSid != nil && newSid != firstSid, "alice publishes in a new session: \(firstSid ?? "-") -> \(newSid ?? "-")")
        let subscribers = await bobSession.subscribers
        #expect(subscribers.count == 1 && subscribers.first === bobSubscriber, "the same subscriber")
        for (name, events) in [("alice", aliceEvents), ("bob", bobEvents)] {
            let lostSomething = events.entries.filter { entry in
                switch entry.event {
                case .participantDidDisconnect, .streamDestroyed, .streamCreated: entry.at > broken
                default: false
                }
            }
            #expect(lostSomething.isEmpty, "\(name): no stream or participant lost or created anew: \(events.timeline(from: broken))")
        }
        #expect(!alicePublisherEvents.entries.contains { entry in
            if case .streamDestroyed = entry.event { entry.at > broken } else { false }
        }, "alice's stream stays: \(alicePublisherEvents.timeline(from: broken))")
        // Alice's publisher names the new session in its arrays.
        let named = await alicePublisherStats.first(after: broken, within: .seconds(5)) { callback in
            if case .publisherMediaLinkStatsUpdated(let links) = callback.event { links.map(\.subscriberId) == [newSid ?? ""] } else { false }
        }
        #expect(named != nil, "alice's publisher arrays name the new session")
        await bobSession.disconnect()
        await aliceSession.disconnect()
    }

    private func seconds(_ instant: ContinuousClock.Instant?, from start: ContinuousClock.Instant) -> String {
        instant.map { String(format: "%.2f s", RealRelayedReconnectTests.seconds($0 - start)) } ?? "never"
    }
}
