import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import Testing

/// The two events a relayed call's signalling adds: the other side's trickled candidates
/// (``SignalingEvent/remoteCandidate(_:_:)``) reach the engine's peer connection of their
/// handle, one refused before a negotiation ended is tried once more after it and then counted
/// as dropped; and the other side's request for an ICE restart
/// (``SignalingEvent/iceRestartRequested(_:)``) restarts once, a restart in the last 2 s (the
/// settings' silent-path threshold) answering it. Expected actions written by hand from the
/// default settings (3 s stall, 5 s per restart, 30 s window, 2 s silent path).
@Suite(.timeLimit(.minutes(1))) struct RemoteCandidateAndRestartRequestTests {
    typealias M = MediaConnectionMachine
    typealias Step = SubscriberConnectionMachineTests.Step
    static let pc1 = PublisherReconnectionTests.pc1
    static let participant = PublisherReconnectionTests.participant
    static let published: [Step] = PublisherReconnectionTests.published
    static func window(_ generation: Int, _ deadline: Int) -> M.Action { SubscriberConnectionMachineTests.window(generation, deadline) }
    static func restartTimer(_ generation: Int, _ deadline: Int) -> M.Action { SubscriberConnectionMachineTests.restartTimer(generation, deadline) }

    static let cases: [(String, [Step])] = [
        ("a request restarts at once; another within 2 s does not, one 2 s later does", published + [
            Step(at: 3, input: .restartRequested(participant), expect: [.restartIce(participant)]),
            Step(at: 4, input: .restartRequested(participant), expect: []),
            Step(at: 5, input: .restartRequested(participant), expect: [.restartIce(participant)]),
        ]),
        ("a request for another handle is stale", published + [
            Step(at: 3, input: .restartRequested(RouterHandleID("other")), expect: []),
        ]),
        ("a request while our offer waits for its answer: the negotiation ends first", [
            Step(at: 0, input: .peerConnectionStarted(pc1, participant), expect: []),
            Step(at: 1, input: .restartRequested(participant), expect: []),
            Step(at: 1, input: .answerSent(pc1), expect: []),
        ]),
        ("the stall 1 s after a requested restart restarts nothing more: that restart is its restart", published + [
            Step(at: 2, input: .restartRequested(participant), expect: [.restartIce(participant)]),
            Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 33), restartTimer(1, 8)]),
            Step(at: 8, input: SubscriberConnectionMachineTests.fire(.restartTimeout, 1), expect: [.restartIce(participant), restartTimer(1, 13)]),
        ]),
        ("a stall 2 s after a requested restart restarts as usual", published + [
            Step(at: 1, input: .restartRequested(participant), expect: [.restartIce(participant)]),
            Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 33), .restartIce(participant), restartTimer(1, 8)]),
        ]),
        ("a request just after our own restart (the other side saw the same silence) does nothing", published + [
            Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 33), .restartIce(participant), restartTimer(1, 8)]),
            Step(at: 4, input: .restartRequested(participant), expect: []),
        ]),
        ("after the end, a request is stale", published + [
            Step(at: 3, input: .unsubscribe, expect: [.tearDown(pc1, participant)]),
            Step(at: 4, input: .restartRequested(participant), expect: []),
        ]),
    ]

    @Test(arguments: cases.indices)
    func table(_ index: Int) {
        SubscriberConnectionMachineTests.play(Self.cases[index])
    }

    // MARK: - Through the session, on the fakes

    @Test func aSubscribersRemoteCandidateReachesItsPeerConnectionAndAnotherHandlesDoesNot() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let candidate = IceCandidate(candidate: "candidate:1 1 udp 2122260223 192.0.2.7 40000 typ host", sdpMid: "0", sdpMLineIndex: nil)
        rig.signaling.emit(.remoteCandidate(RouterHandleID("sub-9"), candidate))     // no such handle
        rig.signaling.emit(.remoteCandidate(RouterHandleID("sub-1"), candidate))
        rig.signaling.emit(.remoteCandidate(RouterHandleID("sub-1"), nil))
        await eventually("the end of candidates added") { rig.engine.calls.contains("addCandidate pc-1 end") }
        #expect(rig.engine.calls.filter { $0.hasPrefix("addCandidate") } == [
            "addCandidate pc-1 candidate:1 1 udp 2122260223 192.0.2.7 40000 typ host", "addCandidate pc-1 end",
        ])
        await rig.session.disconnect()
    }

    @Test func aCandidateHeldForAPeerConnectionThatIsReplacedIsDropped() async throws {
        let published = try await PublisherReconnectionTests.published()
        let rig = published.rig
        rig.engine.failNext("addCandidate pc-1", with: MediaEngineError(.rejected, "unknown ufrag"))
        rig.signaling.emit(.remoteCandidate(FakeSignaling.participantHandle, IceCandidate(candidate: "candidate:2 1 udp 1 192.0.2.8 40001 typ host", sdpMid: "0", sdpMLineIndex: nil)))
        await eventually("held") { await rig.session.remoteCandidateCounts(on: FakeSignaling.participantHandle)?.held == 1 }
        // The router hangs up: a new peer connection on a new handle; the old one's candidate
        // is not tried on it.
        rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "gone"))
        let newHandle = RouterHandleID("participant-1")
        await eventually("republished") { await rig.session.remoteCandidateCounts(on: newHandle) != nil }
        await eventually("negotiated") { rig.engine.calls.contains { $0.hasPrefix("setRemote pc-2") } }
        let counts = await rig.session.remoteCandidateCounts(on: newHandle)
        #expect(counts?.held == 0 && counts?.dropped == 1)
        #expect(!rig.engine.calls.contains { $0.hasPrefix("addCandidate pc-2") })
        await rig.session.disconnect()
    }

    @Test func aPublishersRefusedCandidateIsTriedAgainAfterTheRequestedRestartThenDropped() async throws {
        let published = try await PublisherReconnectionTests.published()
        let rig = published.rig
        let early = IceCandidate(candidate: "candidate:2 1 udp 2122260223 192.0.2.8 40001 typ host", sdpMid: "0", sdpMLineIndex: nil)
        let broken = IceCandidate(candidate: "candidate:3 1 udp 1 192.0.2.9 40002 typ host", sdpMid: "9", sdpMLineIndex: nil)
        // The engine refuses both (as Chromium refuses a candidate of an ICE generation whose
        // remote description is not set yet).
        rig.engine.failNext("addCandidate pc-1 candidate:2", with: MediaEngineError(.rejected, "unknown ufrag"))
        rig.engine.failNext("addCandidate pc-1 candidate:3", with: MediaEngineError(.rejected, "no mid 9"))
        rig.signaling.emit(.remoteCandidate(FakeSignaling.participantHandle, early))
        rig.signaling.emit(.remoteCandidate(FakeSignaling.participantHandle, broken))
        await eventually("both tried") { rig.engine.calls.filter { $0.hasPrefix("addCandidate") }.count == 2 }
        let handle = FakeSignaling.participantHandle
        #expect(await rig.session.remoteCandidateCounts(on: handle)?.held == 2)

        // The friend asks for a restart: our offer with new credentials, its answer set, then
        // the held candidates once more: the first is taken, the second refused again: dropped.
        rig.engine.failNext("addCandidate pc-1 candidate:3", with: MediaEngineError(.rejected, "no mid 9"))
        rig.signaling.emit(.iceRestartRequested(FakeSignaling.participantHandle))
        await eventually("tried again") { rig.engine.calls.filter { $0.hasPrefix("addCandidate") }.count == 4 }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("restartPublisherIce") }.count == 1)
        let calls = rig.engine.calls
        let restartOffer = try #require(calls.lastIndex { $0.hasPrefix("createOffer pc-1") })
        let answerSet = try #require(calls.lastIndex { $0.hasPrefix("setRemote pc-1") })
        let retried = try #require(calls.lastIndex { $0.hasPrefix("addCandidate pc-1 candidate:2") })
        #expect(restartOffer < answerSet && answerSet < retried, "\(calls)")
        let counts = await rig.session.remoteCandidateCounts(on: handle)
        #expect(counts?.held == 0 && counts?.dropped == 1)

        // Asked again at once (the same instant on the manual clock): that restart answers it.
        rig.signaling.emit(.iceRestartRequested(FakeSignaling.participantHandle))
        rig.signaling.emit(.remoteCandidate(FakeSignaling.participantHandle, early))
        await eventually("the next candidate added") { rig.engine.calls.filter { $0.hasPrefix("addCandidate") }.count == 5 }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("restartPublisherIce") }.count == 1)
        #expect(published.events.all.allSatisfy { if case .didFail = $0 { false } else { true } }, "no failure: \(published.events.all)")
        await rig.session.disconnect()
    }
}
