import Observability
import Calls
import CallsChromium
import CallsJanus
import Foundation
import RTCStats
import Testing

/// Reads one engine's events in order: trickles each peer connection's local candidates to its
/// Janus handle once the connection's SDP has reached Janus (a candidate before the answer made
/// Janus treat the answer as a renegotiation), and keeps every event for the checks.
actor EventLog {
    private(set) var events: [MediaEngineEvent] = []
    private var handles: [PeerConnectionID: JanusHandle] = [:]
    private var held: [PeerConnectionID: [IceCandidate?]] = [:]

    func follow(_ engine: any MediaEngine) -> Task<Void, Never> {
        Task { for await event in engine.events { await self.receive(event) } }
    }

    func trickle(_ pc: PeerConnectionID, to handle: JanusHandle) async {
        handles[pc] = handle
        for candidate in held.removeValue(forKey: pc) ?? [] { try? await handle.trickle(candidate) }
    }

    private func receive(_ event: MediaEngineEvent) async {
        events.append(event)
        guard case .candidate(let pc, let candidate) = event else { return }
        if let handle = handles[pc] {
            try? await handle.trickle(candidate)
        } else {
            held[pc, default: []].append(candidate)
        }
    }

    func contains(_ predicate: (MediaEngineEvent) -> Bool) -> Bool { events.contains(where: predicate) }
}

@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealCallTests {
    static let room: UInt64 = 1234

    /// Janus on loopback with the rig's room; one Chromium publishes the fake camera as 3-layer
    /// VP8 simulcast, another subscribes through the Swift Janus client and media engine; the
    /// subscriber's inbound video bytes must rise.
    @Test(.timeLimit(.minutes(3)))
    func subscriberReceivesPublishedVideoThroughJanus() async throws {
        let janus = try await JanusProcess()
        let options = ChromiumOptions(fakeCameraFrameRate: 15)
        let publisherEngine: ChromiumMediaEngine, subscriberEngine: ChromiumMediaEngine
        do {
            publisherEngine = try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }()
        } catch {
            await janus.stop()
            throw error
        }
        do {
            subscriberEngine = try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }()
        } catch {
            await publisherEngine.shutdown()
            await janus.stop()
            throw error
        }
        let publisherLog = EventLog(), subscriberLog = EventLog()
        let followers = [await publisherLog.follow(publisherEngine), await subscriberLog.follow(subscriberEngine)]
        var sessions: [JanusSession] = []
        do {
            // Publisher: join, publish with an offer, take Janus' answer, then trickle.
            let publisherSession = try await JanusSession.create(url: janus.url)
            sessions.append(publisherSession)
            let publisherHandle = try await publisherSession.attach(opaqueID: "callscope-test-publisher")
            let joined = try await publisherHandle.joinAsPublisher(room: Self.room, display: "publisher")
            let publisherPC = try await publisherEngine.makePeerConnection(.init())
            try await publisherEngine.addLocalMedia(LocalMediaSettings(frameRate: 15), to: publisherPC)
            try await publisherEngine.openDataChannel(label: "callscope", on: publisherPC)
            let offer = try await publisherEngine.createOffer(on: publisherPC, iceRestart: false)
            try await publisherEngine.setLocalDescription(offer, on: publisherPC)
            #expect(offer.sdp.contains("a=simulcast:send f;h;q"), "the offer carries the three rids, full size first")
            let answer = try await publisherHandle.publish(offer: offer)
            await publisherLog.trickle(publisherPC, to: publisherHandle)
            try await publisherEngine.setRemoteDescription(answer, on: publisherPC)

            // Subscriber: join as subscriber of the publisher's feed, answer Janus' offer, start.
            let subscriberSession = try await JanusSession.create(url: janus.url)
            sessions.append(subscriberSession)
            let subscriberHandle = try await subscriberSession.attach(opaqueID: "callscope-test-subscriber")
            // A feed can be subscribed to once its PeerConnection is up (before: error 428).
            let publishingBy = ContinuousClock.now + .seconds(20)
            while try await !subscriberHandle.listParticipants(room: Self.room).contains(where: { $0.id == joined.id && $0.publishing }) {
                guard ContinuousClock.now < publishingBy else { throw RigError("the publisher never became a feed") }
                try await Task.sleep(for: .milliseconds(250))
            }
            let subscribed = try await subscriberHandle.joinAsSubscriber(room: Self.room, subscriptions: [VideoRoomSubscription(feed: joined.id)])
            let (streams, subscriberOffer) = (subscribed.streams, subscribed.offer)
            #expect(Set(streams.map(\.type)).isSuperset(of: ["audio", "video"]))
            #expect(streams.allSatisfy { $0.type == "data" || $0.feedID == joined.id })
            let subscriberPC = try await subscriberEngine.makePeerConnection(.init())
            try await subscriberEngine.setRemoteDescription(subscriberOffer, on: subscriberPC)
            let subscriberAnswer = try await subscriberEngine.createAnswer(on: subscriberPC)
            try await subscriberHandle.start(answer: subscriberAnswer)
            await subscriberLog.trickle(subscriberPC, to: subscriberHandle)

            // Media: the subscriber's inbound video bytes rise over successive reports.
            var samples: [Double] = []
            let deadline = ContinuousClock.now + .seconds(40)
            while ContinuousClock.now < deadline {
                let report = try await subscriberEngine.stats(of: subscriberPC)
                let bytes = report.entries(ofType: .inboundRTP).filter { $0.string("kind") == "video" }
                    .compactMap { $0.number("bytesReceived") }.reduce(0, +)
                samples.append(bytes)
                // CALLSCOPE_CAPTURE_STATS=DIR keeps each report, to make the classifier's fixtures.
                if let directory = ProcessInfo.processInfo.environment["CALLSCOPE_CAPTURE_STATS"] {
                    try? report.jsonArray().write(toFile: "\(directory)/subscriber-\(samples.count).json", atomically: true, encoding: .utf8)
                }
                if samples.count >= 3, samples.suffix(3).first! > 0, samples.last! > samples.suffix(3).first! { break }
                try await Task.sleep(for: .seconds(1))
            }
            let rising = samples.count >= 3 && samples.suffix(3).first! > 0 && samples.last! > samples.suffix(3).first!
            #expect(rising, "subscriber inbound-rtp video bytesReceived per second: \(samples)")
            #expect(await subscriberLog.contains {
                if case .iceConnectionState(subscriberPC, .connected) = $0 { return true } else { return false }
            })
            #expect(await subscriberLog.contains {
                if case .track(subscriberPC, .video, _) = $0 { return true } else { return false }
            })
            #expect(await publisherLog.contains {
                if case .candidate(publisherPC, .some) = $0 { return true } else { return false }
            })
        } catch {
            Issue.record("real call failed: \(error)")
        }
        for task in followers { task.cancel() }
        for session in sessions { await session.destroy() }
        await publisherEngine.shutdown()
        await subscriberEngine.shutdown()
        await janus.stop()
    }
}
