import Calls
import CallsChromium
import CallScopeCore
import CallsJanus
import Foundation
import Observability
import Testing

/// Seeds 003 and 004 on real Janus + Chromium (issue 23 items 7, 8, 10, 13): Carol is in the
/// room without publishing, Alice publishes a screen share (no sender stats), Bob watches it.
@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealSeedRowsTests {
    @Test(.timeLimit(.minutes(3)))
    func participantsStreamPropertiesPathsAndHangingUpAsTheSeedsSay() async throws {
        let janus = try await JanusProcess()
        var engines: [ChromiumMediaEngine] = []
        var sessions: [CallSession] = []
        do {
            for _ in 0..<2 { engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions(fakeCameraFrameRate: 15))) }
            func session(_ engine: ChromiumMediaEngine) -> CallSession {
                CallSession(signaling: JanusSignaling(url: janus.url, room: RealCallTests.room), engine: engine,
                            clock: ContinuousClock(), wallClock: Date.init)
            }
            // Carol never creates a peer connection: she shares Bob's engine.
            let (alice, bob, carol) = (session(engines[0]), session(engines[1]), session(engines[1]))
            sessions = [alice, bob, carol]
            let aliceEvents = Timed(alice.events), bobEvents = Timed(bob.events), carolEvents = Timed(carol.events)
            try await carol.connect(display: "carol")
            let carolID = try #require(await carol.connection?.connectionId)

            // Item 7: Carol was there before Alice and publishes nothing (`attendees`).
            progress("seed rows: alice joins")
            try await alice.connect(display: "alice")
            #expect(await aliceEvents.wait(.seconds(5)) { if case .participantDidConnect(let p) = $0 { p.connectionId == carolID } else { false } } != nil,
                    "alice sees carol, who does not publish: \(aliceEvents.all.map(\.1))")

            // Items 7 and 8: Alice's own stream comes through her streamCreated; it is described to the router.
            let settings = CallPublisherSettings(name: "alice's screen", videoType: .screen, media: TwoClientCall.media)
            let publisher = CallPublisher(settings: settings)
            try await alice.publish(publisher)
            let aliceID = try #require(await alice.connection?.connectionId)
            let own = try #require(publisher.stream)
            #expect(await aliceEvents.wait(.seconds(5)) { if case .streamCreated(let s) = $0 { s.connection.connectionId == aliceID } else { false } } != nil,
                    "alice's own stream through streamCreated, and it is hers")

            progress("seed rows: bob joins")
            try await bob.connect(display: "bob")
            let created = await bobEvents.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
            try #require(created != nil, "bob sees alice's stream")
            let stream = try #require(await bob.streams.first { $0.streamId == aliceID })
            // What Alice's settings say, read by Bob before subscribing; her time, to the millisecond the description carries.
            #expect(stream.name == "alice's screen" && stream.videoType == .screen && stream.connection.data == "alice")
            #expect(abs(stream.creationTime.timeIntervalSince(own.creationTime)) < 0.001, "\(stream.creationTime) vs \(own.creationTime)")
            #expect(stream.videoDimensions == CallVideoDimensions(width: TwoClientCall.media.width, height: TwoClientCall.media.height))
            #expect(stream.hasAudio && stream.hasVideo)
            // Carol saw it arrive live (`publishers`), with the same properties (her connection
            // to Alice has her own time: when she learned of it).
            #expect(await carolEvents.wait(.seconds(10)) {
                if case .streamCreated(let s) = $0 {
                    s.streamId == stream.streamId && s.name == stream.name && s.videoType == stream.videoType
                        && s.creationTime == stream.creationTime && s.videoDimensions == stream.videoDimensions
                } else { false }
            } != nil,
                    "carol's view of the stream: \(carolEvents.all.map(\.1))")

            // Item 13: paths to the publisher and to Carol, who publishes nothing, once Bob has a leg to the router.
            let subscriber = CallSubscriber(stream: stream)
            let lifecycle = Timed(subscriber.events)
            try await bob.subscribe(subscriber)
            #expect(await lifecycle.wait(.seconds(20)) { $0 == .didConnect(stream) } != nil, "bob's subscriber connects")
            #expect(await bobEvents.wait(.seconds(8)) { if case .participantPathsChanged(let p) = $0 { p.connectionId == carolID && p.paths == .udpDirect } else { false } } != nil,
                    "bob's path to carol (host UDP to Janus on loopback): \(bobEvents.all.map(\.1).suffix(6))")
            #expect(await bob.participants.first { $0.connectionId == aliceID }?.paths == .udpDirect)

            // Item 8: Alice's camera off reaches everyone's stream (`hasVideo`) through the router.
            publisher.publishVideo = false
            #expect(await bobEvents.wait(.seconds(8)) { if case .streamPropertiesChanged(let s) = $0 { s.streamId == aliceID && !s.hasVideo && s.hasAudio } else { false } } != nil,
                    "bob sees alice's video off: \(bobEvents.all.map(\.1).suffix(5))")

            // Item 10: Bob hangs up on Alice (Carol stays), then on Carol: he leaves.
            let aliceSeenByBob = try #require(await bob.participants.first { $0.connectionId == aliceID })
            await aliceSeenByBob.disconnect()
            #expect(await bobEvents.wait(.seconds(5)) { if case .participantDidDisconnect(let p) = $0 { p.connectionId == aliceID } else { false } } != nil)
            #expect(bobEvents.all.contains { if case .streamDestroyed(let s, .hungUp) = $0.1 { s.streamId == aliceID } else { false } })
            let bobStillConnected = await bob.isConnected
            #expect(await bob.subscribers.isEmpty && bobStillConnected)
            let carolSeenByBob = try #require(await bob.participants.first { $0.connectionId == carolID })
            await carolSeenByBob.disconnect()
            #expect(await bobEvents.wait(.seconds(5)) { $0 == .didDisconnect } != nil, "bob left after his last participant")
            let bobID = try #require(bobEvents.all.compactMap { if case .didConnect(let c) = $0.1 { c.connectionId } else { nil } }.first)
            #expect(await aliceEvents.wait(.seconds(10)) { if case .participantDidDisconnect(let p) = $0 { p.connectionId == bobID } else { false } } != nil,
                    "the router told alice bob left")
        } catch {
            Issue.record("seed rows failed: \(error)")
        }
        for session in sessions { await session.disconnect() }
        for engine in engines { await engine.shutdown() }
        await janus.stop()
    }
}
