import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// The publisher's reconnection: the same machine as a subscriber's, fed with the publishing
/// peer connection (what it receives on its selected pair — the router's RTCP and consent
/// responses — stops when its path is lost, while it keeps sending) and the participant handle.
/// Expected actions written out by hand from the settings (3 s stall, 5 s per restart, 2
/// restarts, 30 s window).
@Suite(.timeLimit(.minutes(1))) struct PublisherReconnectionTests {
    typealias M = PublisherConnectionMachine
    typealias Step = SubscriberConnectionMachineTests.Step
    static let pc1 = PeerConnectionID("pc-1"), pc2 = PeerConnectionID("pc-2")
    static let participant = RouterHandleID("participant"), participant2 = RouterHandleID("participant-1")
    static func rtcp(_ bytes: Double, _ responses: Double = 0, on pc: PeerConnectionID = pc1) -> M.Input {
        .statsSample(pc, bytesReceived: bytes, responsesReceived: responses)
    }
    static func window(_ generation: Int, _ deadline: Int) -> M.Action { SubscriberConnectionMachineTests.window(generation, deadline) }
    static func restartTimer(_ generation: Int, _ deadline: Int) -> M.Action { SubscriberConnectionMachineTests.restartTimer(generation, deadline) }
    static func fire(_ kind: M.TimerKind, _ generation: Int) -> M.Input { SubscriberConnectionMachineTests.fire(kind, generation) }

    /// Published on pc-1 over the participant handle, the router's answer set, Janus' webrtcup.
    static let published: [Step] = [
        Step(at: 0, input: .peerConnectionStarted(pc1, participant), expect: []),
        Step(at: 0, input: .answerSent(pc1), expect: []),
        Step(at: 0, input: .routerMediaUp(participant), expect: [.emit(.didConnect)]),
        Step(at: 1, input: rtcp(300, 1), expect: []),
        Step(at: 2, input: rtcp(600, 1), expect: []),
    ]

    /// Disconnected at 3 s; restarts at 8 and 13 s, a republish at 18 s, restarts on the new
    /// connection at 23 and 28 s: the next restart step is due at 33 s, when the window ends.
    static let restartsUntilTheWindow: [Step] = published + [
        Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 33), .restartIce(participant), restartTimer(1, 8)]),
        Step(at: 8, input: fire(.restartTimeout, 1), expect: [.restartIce(participant), restartTimer(1, 13)]),
        Step(at: 13, input: fire(.restartTimeout, 1), expect: [.restartIce(participant), restartTimer(1, 18)]),
        Step(at: 18, input: fire(.restartTimeout, 1), expect: [.replacePeerConnection(pc1, participant), restartTimer(1, 23)]),
        Step(at: 19, input: .peerConnectionStarted(pc2, participant2), expect: []),
        Step(at: 19, input: .answerSent(pc2), expect: []),
        Step(at: 23, input: fire(.restartTimeout, 1), expect: [.restartIce(participant2), restartTimer(1, 28)]),
        Step(at: 28, input: fire(.restartTimeout, 1), expect: [.restartIce(participant2), restartTimer(1, 33)]),
    ]

    static let cases: [(String, [Step])] = [
        ("RTCP and responses flat for 3 s: didDisconnect, then our own ICE restart", published + [
            Step(at: 3, input: rtcp(600, 1), expect: []),
            Step(at: 4, input: rtcp(600, 1), expect: []),
            Step(at: 5, input: rtcp(600, 1), expect: [.emit(.didDisconnect), window(1, 35), .restartIce(participant), restartTimer(1, 10)]),
            Step(at: 6, input: .answerSent(pc1), expect: []),
            Step(at: 9, input: rtcp(900, 2), expect: [.emit(.didReconnect)]),
            Step(at: 10, input: fire(.restartTimeout, 1), expect: []),
            Step(at: 35, input: fire(.reconnectWindow, 1), expect: []),
        ]),
        ("a hangup on the participant handle republishes at once; RTCP on the new connection reconnects", published + [
            Step(at: 3, input: .routerHangup(participant), expect: [.emit(.didDisconnect), window(1, 33), .replacePeerConnection(pc1, participant)]),
            Step(at: 4, input: .peerConnectionStarted(pc2, participant2), expect: []),
            Step(at: 4, input: rtcp(0, on: pc2), expect: []),
            Step(at: 4, input: rtcp(9_000, 9, on: pc1), expect: []),
            Step(at: 4, input: .routerHangup(participant), expect: []),
            Step(at: 4, input: .answerSent(pc2), expect: []),
            Step(at: 5, input: rtcp(200, 1, on: pc2), expect: [.emit(.didReconnect)]),
        ]),
        ("a restart asked for before the router answered our first offer waits for the answer", [
            Step(at: 0, input: .peerConnectionStarted(pc1, participant), expect: []),
            Step(at: 0, input: rtcp(100), expect: []),
            Step(at: 1, input: rtcp(200), expect: [.emit(.didConnect)]),
            Step(at: 2, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 32), restartTimer(1, 7)]),
            Step(at: 3, input: .answerSent(pc1), expect: [.restartIce(participant)]),
        ]),
        ("restarts that do not help: republish, then the window ends it once", published + [
            Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 33), .restartIce(participant), restartTimer(1, 8)]),
            Step(at: 8, input: fire(.restartTimeout, 1), expect: [.restartIce(participant), restartTimer(1, 13)]),
            Step(at: 13, input: fire(.restartTimeout, 1), expect: [.restartIce(participant), restartTimer(1, 18)]),
            Step(at: 18, input: fire(.restartTimeout, 1), expect: [.replacePeerConnection(pc1, participant), restartTimer(1, 23)]),
            Step(at: 19, input: .peerConnectionStarted(pc2, participant2), expect: []),
            Step(at: 33, input: fire(.reconnectWindow, 1), expect: [.destroyStream, .tearDown(pc2, participant2)]),
            Step(at: 34, input: rtcp(500, 1, on: pc2), expect: []),
        ]),
        ("a restart step due when the window ends ends it as the window does: no last republish", restartsUntilTheWindow + [
            Step(at: 33, input: fire(.restartTimeout, 1), expect: [.destroyStream, .tearDown(pc2, participant2)]),
            Step(at: 33, input: fire(.reconnectWindow, 1), expect: []),
        ]),
        ("the window and the restart step due then, the window first", restartsUntilTheWindow + [
            Step(at: 33, input: fire(.reconnectWindow, 1), expect: [.destroyStream, .tearDown(pc2, participant2)]),
            Step(at: 33, input: fire(.restartTimeout, 1), expect: []),
        ]),
        ("unpublish during a reconnect ends it: nothing after", published + [
            Step(at: 3, input: .iceState(pc1, .failed), expect: [.emit(.didDisconnect), window(1, 33), .restartIce(participant), restartTimer(1, 8)]),
            Step(at: 4, input: .unsubscribe, expect: [.tearDown(pc1, participant)]),
            Step(at: 8, input: fire(.restartTimeout, 1), expect: []),
            Step(at: 33, input: fire(.reconnectWindow, 1), expect: []),
        ]),
    ]

    @Test(arguments: cases.indices)
    func table(_ index: Int) {
        SubscriberConnectionMachineTests.play(Self.cases[index])
    }

    // MARK: - Through the session, on the fakes

    struct Published {
        let rig: CallSessionTests.Rig
        let publisher: CallPublisher
        let events: Collector<CallPublisherEvent>
    }

    static func published(participantAfterRepublish: FeedID? = nil) async throws -> Published {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect(display: "alice")
        let publisher = CallPublisher(settings: CallPublisherSettings(name: "alice"))
        let events = Collector(publisher.events)
        try await rig.session.publish(publisher)
        rig.signaling.emit(.mediaUp(FakeSignaling.participantHandle))
        await eventually("didConnect") { events.all.count == 1 }
        return Published(rig: rig, publisher: publisher, events: events)
    }

    /// Waits until the tasks on the rig's clock sleep until exactly `deadlines` (seconds): every
    /// task the last advance woke has done its work and slept again, or ended. The tests know
    /// their timers (the stats loop every second, the machine's restart steps and window).
    static func asleep(_ rig: CallSessionTests.Rig, until deadlines: [Int],
                       sourceLocation: SourceLocation = #_sourceLocation) async {
        let expected = deadlines.sorted().map { ManualClock.Instant(offset: .seconds($0)) }
        await eventually("asleep until \(deadlines) s", sourceLocation: sourceLocation) { rig.clock.sleeperDeadlines == expected }
        #expect(rig.clock.sleeperDeadlines.map(\.offset) == expected.map(\.offset), sourceLocation: sourceLocation)
    }

    /// One stats interval with `report` on `pc`: the clock advances one second, and the sample
    /// (with whatever the machine did on it) is done when the stats loop sleeps until the next
    /// tick (no timer of these tests is due a second after a tick they advance to).
    static func second(_ rig: CallSessionTests.Rig, _ report: StatsReport, on pc: PeerConnectionID = pc1) async {
        rig.engine.setReport(report, for: pc)
        let next = rig.clock.now.advanced(by: .seconds(2))
        let timersDueThen = rig.clock.sleeperDeadlines.filter { $0 == next }.count
        rig.clock.advance(by: .seconds(1))
        await eventually("the sample at \(rig.clock.now.offset) done") {
            rig.clock.sleeperDeadlines.filter { $0 == next }.count > timersDueThen
        }
    }

    /// One stats interval with `bytes` received on `pc`'s selected pair.
    static func second(_ rig: CallSessionTests.Rig, _ bytes: Double, on pc: PeerConnectionID = pc1) async {
        await second(rig, CallSessionTests.pairReport(bytes: bytes), on: pc)
    }

    @Test func flatRTCPDisconnectsRestartsIceWithOurOfferAndReconnects() async throws {
        let p = try await Self.published()
        let stream = try #require(p.publisher.stream)
        for bytes in [300.0, 600, 600, 600, 600] { await Self.second(p.rig, bytes) }
        await eventually("didDisconnect") { p.events.all.count == 2 }
        await eventually("restart answered") { p.rig.engine.calls.contains("setRemote pc-1 answer to fake offer 2") }
        #expect(p.rig.signaling.calls.contains("restartPublisherIce fake offer 2"))
        // The restart offer created, set, then the router's answer to it.
        let restart = p.rig.engine.calls.drop { $0 != "createOffer pc-1 iceRestart" }.filter { !$0.hasPrefix("stats") }
        #expect(Array(restart) == ["createOffer pc-1 iceRestart", "setLocal pc-1 fake offer 2", "setRemote pc-1 answer to fake offer 2"])
        await Self.second(p.rig, 900)
        await eventually("didReconnect") { p.events.all.count == 3 }
        #expect(p.events.all == [.didConnect(stream), .didDisconnect(stream), .didReconnect(stream)])
        #expect(!p.rig.signaling.calls.contains { $0.hasPrefix("republish") })
    }

    /// The router refusing the restart offer: the engine never applied it (its new candidates
    /// never checked against the router's old credentials), and the app is told.
    @Test func aRestartOfferTheRouterRefusesIsNeverSetLocally() async throws {
        let p = try await Self.published()
        p.rig.signaling.failNext("restartPublisherIce", with: SignalingError(routerCode: 433, "ICE restart refused"))
        for bytes in [300.0, 600, 600, 600, 600] { await Self.second(p.rig, bytes) }
        await eventually("didFail") { p.events.all.contains { if case .didFail = $0 { true } else { false } } }
        #expect(p.rig.engine.calls.contains("createOffer pc-1 iceRestart"))
        #expect(!p.rig.engine.calls.contains("setLocal pc-1 fake offer 2"))
        #expect(!p.rig.engine.calls.contains { $0.hasPrefix("setRemote pc-1 answer to fake offer 2") })
    }

    @Test func bytesStillSentDoNotKeepAPublisherConnected() async throws {
        let p = try await Self.published()
        // Its selected pair keeps sending (into the void); nothing comes back.
        for (second, received) in [(1, 300.0), (2, 600), (3, 600), (4, 600), (5, 600)] {
            var entries = CallSessionTests.pairReport(bytes: received).entries
            entries = entries.map { entry in
                guard entry.type == .candidatePair else { return entry }
                return StatsEntry(id: entry.id, type: entry.type, timestamp: entry.timestamp,
                                  fields: entry.fields + [StatsField("bytesSent", .number(Double(second) * 100_000))])
            }
            await Self.second(p.rig, StatsReport(entries: entries))
            #expect(p.rig.engine.calls.filter { $0 == "stats pc-1" }.count == second)
        }
        await eventually("didDisconnect") { p.events.all.count == 2 }
        guard case .didDisconnect = p.events.all.last else { Issue.record("expected didDisconnect: \(p.events.all)"); return }
    }

    @Test func aRouterHangupRepublishesOnANewHandleUnderTheSameId() async throws {
        let p = try await Self.published()
        let stream = try #require(p.publisher.stream)
        await Self.second(p.rig, 300)
        p.rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "ICE failed"))
        await eventually("republished") { p.rig.engine.calls.contains("setRemote pc-2 answer to fake offer 2") }
        #expect(p.rig.engine.calls.contains("close pc-1") && p.rig.engine.openPeerConnections == [Self.pc2])
        #expect(p.rig.signaling.calls.contains("republish 100 fake offer 2"))
        #expect(p.rig.engine.calls.contains("addLocalMedia pc-2 f,h,q"))
        await Self.second(p.rig, 0, on: Self.pc2)
        await Self.second(p.rig, 400, on: Self.pc2)
        await eventually("didReconnect") { p.events.all.count == 3 }
        #expect(p.events.all == [.didConnect(stream), .didDisconnect(stream), .didReconnect(stream)])
        #expect(p.publisher.stream?.streamId == "100")
        #expect(await p.rig.session.connection?.connectionId == "100")
        // A late hangup of the old handle changes nothing.
        p.rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "Close PC"))
        await Self.second(p.rig, 800, on: Self.pc2)
        #expect(p.events.all.count == 3)
    }

    @Test func whenTheRouterGivesANewIdTheStreamAndOurConnectionFollowIt() async throws {
        let p = try await Self.published()
        p.rig.signaling.setRoom(participantID: FeedID("101"), feeds: [CallSessionTests.feed7])
        p.rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "DTLS alert"))
        await eventually("republished") { p.rig.engine.calls.contains("setRemote pc-2 answer to fake offer 2") }
        await Self.second(p.rig, 0, on: Self.pc2)
        await Self.second(p.rig, 400, on: Self.pc2)
        await eventually("didReconnect") { p.events.all.count == 3 }
        guard case .didReconnect(let stream) = p.events.all.last else { Issue.record("no didReconnect"); return }
        #expect(stream.streamId == "101" && stream.connection.connectionId == "101")
        #expect(await p.rig.session.connection?.connectionId == "101")
        // Our own stream comes through streamCreated (seed 004), and the app's "is it mine?" check
        // sees it: the old one destroyed, the new one created under our new id.
        let ownCreated = p.rig.events.all.compactMap { if case .streamCreated(let s) = $0 { s } else { nil } }.filter { $0.connection.connectionId == "101" }
        #expect(ownCreated.map(\.streamId) == ["101"], "our own stream, created once under the new id")
        #expect(p.rig.events.all.contains { if case .streamDestroyed(let s, .unpublished) = $0 { s.streamId == "100" } else { false } })
    }

    @Test func aPathNotBackWithinTheWindowUnpublishesOnce() async throws {
        let p = try await Self.published()
        let stream = try #require(p.publisher.stream)
        for pc in [Self.pc1, Self.pc2] { p.rig.engine.setReport(CallSessionTests.pairReport(bytes: 0), for: pc) }
        p.rig.engine.emit(.iceConnectionState(Self.pc1, .disconnected))
        await eventually("didDisconnect") { p.events.all.count == 2 }
        // Disconnected at 0 s: ICE restarted at once, a restart step every 5 s (restarts at 5
        // and 10 s, a republish at 15 s, restarts at 20 and 25 s), the window ends at 30 s.
        await Self.asleep(p.rig, until: [1, 5, 30])
        for second in 1...29 {
            p.rig.clock.advance(by: .seconds(1))
            await Self.asleep(p.rig, until: [second + 1, (second / 5 + 1) * 5, 30])
            if second == 15 {
                #expect(p.rig.engine.openPeerConnections == [Self.pc2], "republished at 15 s")
            }
        }
        #expect(p.publisher.stream == stream && !p.rig.signaling.calls.contains("unpublish"), "still published at 29 s")
        #expect(p.rig.signaling.calls.filter { $0.hasPrefix("restartPublisherIce") }.count == 5)
        #expect(p.rig.signaling.calls.filter { $0.hasPrefix("republish") }.count == 1)

        // At 30 s the window and the restart step due then fire together; either ends it.
        p.rig.clock.advance(by: .seconds(1))
        await eventually("streamDestroyed") { p.events.all.count == 3 }
        #expect(p.events.all == [.didConnect(stream), .didDisconnect(stream), .streamDestroyed(stream, reason: .mediaLost)])
        // The event is delivered before the session tears the publication down; the stream
        // goes last, and with it the timers (only the stats loop is left on the clock).
        await eventually("torn down") { p.publisher.stream == nil }
        await Self.asleep(p.rig, until: [31])
        #expect(p.rig.engine.openPeerConnections.isEmpty)
        #expect(p.rig.signaling.calls.last == "unpublish")
        #expect(p.rig.signaling.calls.filter { $0.hasPrefix("restartPublisherIce") }.count == 5)
        #expect(p.rig.signaling.calls.filter { $0.hasPrefix("republish") }.count == 1)

        // Once: nothing more comes, however long the session goes on.
        let calls = p.rig.signaling.calls
        for second in 31...40 {
            p.rig.clock.advance(by: .seconds(1))
            await Self.asleep(p.rig, until: [second + 1])
        }
        #expect(p.rig.signaling.calls == calls)
        #expect(p.events.all.count == 3)
    }

    @Test func unpublishDuringAReconnectEndsItSilently() async throws {
        let p = try await Self.published()
        p.rig.engine.emit(.iceConnectionState(Self.pc1, .disconnected))
        await eventually("didDisconnect") { p.events.all.count == 2 }
        await Self.asleep(p.rig, until: [1, 5, 30])
        await p.rig.session.unpublish(p.publisher)
        // Its restart step and window are cancelled: only the stats loop is left on the clock.
        await Self.asleep(p.rig, until: [1])
        for second in 1...32 {
            p.rig.clock.advance(by: .seconds(1))
            await Self.asleep(p.rig, until: [second + 1])
        }
        #expect(p.events.all.count == 2)
        #expect(p.rig.signaling.calls.filter { $0.hasPrefix("restartPublisherIce") }.count == 1, "only the first, at 0 s")
        #expect(!p.rig.signaling.calls.contains { $0.hasPrefix("republish") })
    }
}
