import CallScopeCore
import Observability
import CallScopeTesting
@testable import Calls
import Foundation
import RTCStats
import Testing

/// Yields (never sleeps) until `condition` holds; records an issue after many tries.
func eventually(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool) async {
    for _ in 0..<20_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
}

/// Collects a stream's elements as they come.
final class Collector<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    init(_ stream: AsyncStream<Element>) {
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.items.withLock { $0.append(item) }
            }
        }
    }
    var all: [Element] { items.withLock { $0 } }
}

/// The session over the fake router and engine: what it asks of them, in which order, and what
/// it tells the app (docs/spec/sessions.md §1–2).
@Suite(.timeLimit(.minutes(1))) struct CallSessionTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let feed7 = RouterFeed(id: FeedID("7"), display: "seven", hasAudio: true, hasVideo: true)

    struct Rig {
        let clock = ManualClock()
        let engine = FakeMediaEngine()
        let signaling: FakeSignaling
        let session: CallSession
        let events: Collector<CallSessionEvent>

        init(feeds: [RouterFeed] = [CallSessionTests.feed7], configuration: CallSessionConfiguration = .init()) {
            signaling = FakeSignaling(participantID: FeedID("100"), feeds: feeds)
            session = CallSession(signaling: signaling, engine: engine, clock: clock, wallClock: { CallSessionTests.t0 },
                                  configuration: configuration)
            events = Collector(session.events)
        }

        func stream(_ id: String) async throws -> CallStream {
            try #require(await session.streams.first { $0.streamId == id })
        }
    }

    static func pairReport(bytes: Double, responses: Double = 0, at time: Double = 0) -> StatsReport {
        StatsReport(entries: [
            StatsEntry(id: "T01", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP1"))]),
            StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                StatsField("bytesReceived", .number(bytes)), StatsField("responsesReceived", .number(responses)),
                StatsField("state", .string("succeeded")), StatsField("nominated", .bool(true)),
            ]),
        ])
    }

    @Test func connectReportsUsThenTheRoom() async throws {
        let rig = Rig()
        try await rig.session.connect(display: "me")
        let connection = try #require(await rig.session.connection)
        #expect(connection.connectionId == "100" && connection.data == "me" && connection.creationTime == Self.t0)
        await eventually("four events") { rig.events.all.count == 4 }
        let names = rig.events.all.map { event -> String in
            switch event {
            case .didConnect(let c): "didConnect \(c.connectionId)"
            case .connectionCreated(let c): "connectionCreated \(c.connectionId)"
            case .streamCreated(let s): "streamCreated \(s.streamId)"
            case .participantDidConnect(let p): "participantDidConnect \(p.connectionId) \(p.paths)"
            default: "other"
            }
        }
        // The participant is in the call from its connection on, before any path is known.
        #expect(names == ["didConnect 100", "connectionCreated 7", "participantDidConnect 7 none", "streamCreated 7"])
        #expect(rig.signaling.calls == ["join me"])
    }

    @Test func subscribeFailsWithTypedErrors() async throws {
        let rig = Rig()
        let stranger = CallStream(streamId: "7", connection: CallConnection(connectionId: "7", creationTime: Self.t0, data: nil),
                                  creationTime: Self.t0, hasAudio: true, hasVideo: true, name: nil, videoType: .camera)
        await #expect(throws: CallError(.notConnected, "subscribe: not connected")) {
            try await rig.session.subscribe(CallSubscriber(stream: stranger))
        }
        try await rig.session.connect()
        let mine = CallStream(streamId: "100", connection: try #require(await rig.session.connection), creationTime: Self.t0,
                              hasAudio: true, hasVideo: true, name: nil, videoType: .camera)
        await #expect(throws: CallError(.ownStream, "subscribe: 100 is our own stream")) {
            try await rig.session.subscribe(CallSubscriber(stream: mine))
        }
        var gone = stranger
        gone.streamId = "8"
        await #expect(throws: CallError(.streamGone, "subscribe: no stream 8 in the session")) {
            try await rig.session.subscribe(CallSubscriber(stream: gone))
        }
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        await #expect(throws: CallError(.alreadySubscribed, "subscribe: already subscribed to 7")) {
            try await rig.session.subscribe(subscriber)
        }
        rig.signaling.failNext("subscribe 7", with: SignalingError(routerCode: 428, "No such feed (7)"))
        do {
            try await rig.session.subscribe(CallSubscriber(stream: try await rig.stream("7")))
            Issue.record("a router refusal must throw")
        } catch let error as CallError {
            #expect(error.code == .routerError && error.routerCode == 428)
        }
    }

    @Test func subscribeAnswersTheRouterOfferAndTricklesAfterTheAnswer() async throws {
        let rig = Rig()
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        let lifecycle = Collector(subscriber.events)
        // A candidate gathered before the answer reached the router is held until it has.
        rig.engine.emit(.candidate(PeerConnectionID("pc-1"), IceCandidate(candidate: "candidate:early", sdpMid: "0", sdpMLineIndex: 0)))
        try await rig.session.subscribe(subscriber)
        #expect(Array(rig.engine.calls.prefix(3)) == ["make pc-1", "setRemote pc-1 offer for 7", "createAnswer pc-1"])
        rig.engine.emit(.candidate(PeerConnectionID("pc-1"), IceCandidate(candidate: "candidate:late", sdpMid: "0", sdpMLineIndex: 0)))
        rig.engine.emit(.candidate(PeerConnectionID("pc-1"), nil))
        await eventually("three trickles") { rig.signaling.calls.filter { $0.hasPrefix("trickle") }.count == 3 }
        #expect(rig.signaling.calls == ["join -", "subscribe 7", "start sub-1 fake answer 1",
                                        "trickle sub-1 candidate:early", "trickle sub-1 candidate:late", "trickle sub-1 end"])
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .connected))
        rig.signaling.emit(.mediaUp(RouterHandleID("sub-1")))
        await eventually("didConnect") { !lifecycle.all.isEmpty }
        await Task.yield()
        #expect(lifecycle.all == [.didConnect(subscriber.stream)])
    }

    @Test func statsAreSampledEveryIntervalOnTheInjectedClock() async throws {
        let rig = Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(2), subscriberHealthInterval: nil))
        try await rig.session.connect()
        try await rig.session.subscribe(CallSubscriber(stream: try await rig.stream("7")))
        for second in 1...6 {
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            let expected = second / 2
            await eventually("\(expected) samples at \(second) s") { rig.engine.calls.filter { $0 == "stats pc-1" }.count == expected }
        }
        #expect(rig.engine.calls.filter { $0 == "stats pc-1" }.count == 3)
    }

    @Test func aSubscribedStreamThatLeavesEndsItsSubscriberOnce() async throws {
        let rig = Rig()
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        rig.signaling.emit(.feedUnpublished(FeedID("7")))
        rig.signaling.emit(.feedUnpublished(FeedID("7")))
        rig.signaling.emit(.participantLeft(FeedID("7")))
        await eventually("connectionDestroyed") {
            rig.events.all.contains { if case .connectionDestroyed = $0 { true } else { false } }
        }
        let destroyed = rig.events.all.filter { if case .streamDestroyed = $0 { true } else { false } }
        #expect(destroyed == [.streamDestroyed(subscriber.stream, reason: .unpublished)])
        #expect(rig.engine.openPeerConnections.isEmpty)
        #expect(rig.signaling.calls.contains("close sub-1"))
        #expect(await rig.session.subscribers.isEmpty)
        await rig.session.unsubscribe(subscriber)          // idempotent after the end
        #expect(rig.signaling.calls.filter { $0 == "close sub-1" }.count == 1)
    }

    @Test func flatMediaDisconnectsRestartsIceAndReconnectsWhenBytesFlow() async throws {
        let rig = Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        let lifecycle = Collector(subscriber.events)
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.iceConnectionState(pc, .connected))
        await eventually("didConnect") { lifecycle.all.count == 1 }
        // Bytes at 1 s and 2 s, then flat: 3 s without progress at 5 s.
        for (second, bytes) in [(1, 1000.0), (2, 2000), (3, 2000), (4, 2000), (5, 2000)] {
            rig.engine.setReport(Self.pairReport(bytes: bytes), for: pc)
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            await eventually("sample \(second)") { rig.engine.calls.filter { $0 == "stats pc-1" }.count == second }
        }
        await eventually("didDisconnect") { lifecycle.all.count == 2 }
        await eventually("restart") { rig.signaling.calls.contains("restartIce sub-1") }
        // Janus answers the restart with an offer; we answer it; bytes flow again.
        rig.signaling.emit(.offer(RouterHandleID("sub-1"), SessionDescription(kind: .offer, sdp: "restart offer")))
        await eventually("answered") { rig.signaling.calls.contains { $0.hasPrefix("start sub-1 fake answer 2") } }
        rig.engine.setReport(Self.pairReport(bytes: 5000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("didReconnect") { lifecycle.all.count == 3 }
        #expect(lifecycle.all == [.didConnect(subscriber.stream), .didDisconnect(subscriber.stream), .didReconnect(subscriber.stream)])
        #expect(!rig.events.all.contains { if case .streamDestroyed = $0 { true } else { false } })
    }

    @Test func aDisconnectLongerThanTheWindowDestroysTheStreamOnce() async throws {
        let rig = Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(60), reconnectWindow: .seconds(10), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        let lifecycle = Collector(subscriber.events)
        try await rig.session.subscribe(subscriber)
        // The router says the publisher no longer publishes: the stream is not offered again.
        rig.signaling.setPublishing(FeedID("7"), false)
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .connected))
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .disconnected))
        await eventually("didDisconnect") { lifecycle.all.count == 2 }
        // Sleepers now: the stats loop, the window (10 s) and the restart timeout (5 s).
        await rig.clock.waitForSleepers(3)
        rig.clock.advance(by: .seconds(10))
        await eventually("streamDestroyed") {
            rig.events.all.contains { if case .streamDestroyed(_, .mediaLost) = $0 { true } else { false } }
        }
        rig.signaling.emit(.feedUnpublished(FeedID("7")))       // the router's later word changes nothing
        await eventually("pc closed") { rig.engine.openPeerConnections.isEmpty }
        for _ in 0..<100 { await Task.yield() }
        #expect(rig.events.all.filter { if case .streamDestroyed = $0 { true } else { false } }.count == 1)
        #expect(await rig.session.subscribers.isEmpty)
    }

    @Test func aLostSignalingSessionRejoinsAndReportsOnlyWhatReallyChanged() async throws {
        let feed9 = RouterFeed(id: FeedID("9"), display: "nine", hasAudio: true, hasVideo: true)
        let rig = Rig(feeds: [Self.feed7, feed9], configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect()
        let seven = CallSubscriber(stream: try await rig.stream("7"))
        let nine = CallSubscriber(stream: try await rig.stream("9"))
        let sevenEvents = Collector(seven.events), nineEvents = Collector(nine.events)
        try await rig.session.subscribe(seven)
        try await rig.session.subscribe(nine)
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .connected))
        await eventually("seven connected") { sevenEvents.all.count == 1 }
        let before = rig.events.all.count

        // Janus restarted: 7 is back under the same id, 9 is gone, 8 is new; we are 101 now.
        let feed8 = RouterFeed(id: FeedID("8"), display: "eight", hasAudio: true, hasVideo: false)
        rig.signaling.setRoom(participantID: FeedID("101"), feeds: [Self.feed7, feed8])
        rig.signaling.emit(.sessionLost(reason: "HTTP 404"))
        await eventually("subscribed to 7 again") { rig.signaling.calls.filter { $0 == "subscribe 7" }.count == 2 }
        await eventually("8 created") { rig.events.all.contains { if case .streamCreated(let s) = $0 { s.streamId == "8" } else { false } } }
        let after = Array(rig.events.all.dropFirst(before)).map { event -> String in
            switch event {
            case .streamCreated(let s): "streamCreated \(s.streamId)"
            case .streamDestroyed(let s, let r): "streamDestroyed \(s.streamId) \(r.rawValue)"
            case .connectionCreated(let c): "connectionCreated \(c.connectionId)"
            case .connectionDestroyed(let c): "connectionDestroyed \(c.connectionId)"
            case .participantDidConnect(let p): "participantDidConnect \(p.connectionId)"
            case .participantDidDisconnect(let p): "participantDidDisconnect \(p.connectionId)"
            default: "other"
            }
        }
        // 7 stayed under the same id: neither disconnected nor connected again.
        #expect(after == ["streamDestroyed 9 publisherLeft", "connectionDestroyed 9", "participantDidDisconnect 9",
                          "connectionCreated 8", "participantDidConnect 8", "streamCreated 8"])
        #expect(await rig.session.connection?.connectionId == "101")
        #expect(rig.signaling.calls.filter { $0 == "join -" }.count == 2)
        #expect(sevenEvents.all == [.didConnect(seven.stream), .didDisconnect(seven.stream)], "7 reconnects on a new handle")
        #expect(nineEvents.all.isEmpty, "9's subscriber ends with its stream, silently")
        #expect(await rig.session.subscribers.map(\.stream.streamId) == ["7"])
        #expect(!rig.engine.openPeerConnections.contains(PeerConnectionID("pc-1")), "the dead handle's peer connection is closed")
    }

    @Test func rejoiningThatKeepsFailingEndsTheSession() async throws {
        let rig = Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil, rejoinAttempts: 2))
        try await rig.session.connect()
        rig.signaling.failNext("join", with: SignalingError(sessionLost: true, "connection refused"))
        rig.signaling.emit(.sessionLost(reason: "HTTP 404"))
        await eventually("first attempt") { rig.signaling.calls.filter { $0.hasPrefix("join") }.count == 2 }
        rig.signaling.failNext("join", with: SignalingError(sessionLost: true, "connection refused"))
        await rig.clock.waitForSleepers(2)                 // the stats loop and the 1 s back-off
        rig.clock.advance(by: .seconds(1))
        await eventually("didDisconnect") { rig.events.all.contains(.didDisconnect) }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("join") }.count == 3)
        #expect(await rig.session.connection == nil)
        #expect(rig.events.all.contains { if case .didFail(let e) = $0 { e.code == .notConnected } else { false } })
    }

    @Test func connectFailuresSayWhetherTheRouterRefusedOrWasUnreachable() async throws {
        let rig = Rig()
        rig.signaling.failNext("join", with: SignalingError("connection refused"))
        await #expect(throws: CallError(.signalingUnavailable, "join: connection refused")) { try await rig.session.connect() }
        rig.signaling.failNext("join", with: SignalingError(routerCode: 426, "No such room (1234)"))
        await #expect(throws: CallError(.routerError, routerCode: 426, "join: No such room (1234)")) { try await rig.session.connect() }
        #expect(await rig.session.connection == nil)
        try await rig.session.connect()
        #expect(await rig.session.isConnected)
    }
}
