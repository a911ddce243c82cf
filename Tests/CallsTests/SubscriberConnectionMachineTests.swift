@testable import Calls
import Observability
import Testing

/// The reconnection machine as tables: inputs at clock times, and the actions the spec asks for
/// (docs/spec/sessions.md §2, docs/reconnection.md), written out by hand from the settings
/// (3 s stall, 5 s per
/// restart, 2 restarts, 30 s window, 2 s of a silent path).
@Suite struct SubscriberConnectionMachineTests {
    typealias M = SubscriberConnectionMachine
    static let pc1 = PeerConnectionID("pc-1"), pc2 = PeerConnectionID("pc-2")
    static let h1 = RouterHandleID("h-1"), h2 = RouterHandleID("h-2")

    struct Step: Sendable {
        var at: Int            // seconds on the injected clock
        var input: M.Input
        var expect: [M.Action]
    }

    static func window(_ generation: Int, _ deadline: Int) -> M.Action {
        .armTimer(M.TimerID(kind: .reconnectWindow, generation: generation), deadline: .seconds(deadline))
    }
    static func restartTimer(_ generation: Int, _ deadline: Int) -> M.Action {
        .armTimer(M.TimerID(kind: .restartTimeout, generation: generation), deadline: .seconds(deadline))
    }
    static func fire(_ kind: M.TimerKind, _ generation: Int) -> M.Input { .timerFired(M.TimerID(kind: kind, generation: generation)) }
    static func sample(_ bytes: Double, _ responses: Double = 0, on pc: PeerConnectionID = pc1) -> M.Input {
        .statsSample(pc, bytesReceived: bytes, responsesReceived: responses)
    }

    /// Started on pc-1/h-1, answered, ICE connected at 0 s: `didConnect`.
    static let connected: [Step] = [
        Step(at: 0, input: .peerConnectionStarted(pc1, h1), expect: []),
        Step(at: 0, input: .answerSent(pc1), expect: []),
        Step(at: 0, input: .iceState(pc1, .connected), expect: [.emit(.didConnect)]),
        Step(at: 0, input: sample(1000), expect: []),
        Step(at: 1, input: sample(2000), expect: []),
    ]

    /// Disconnect at 4 s: bytes flat since 1 s (3 s), ICE still connected (Chromium keeps it so
    /// through a 4–6 s blackout).
    static let stalled: [Step] = connected + [
        Step(at: 2, input: sample(2000), expect: []),
        Step(at: 3, input: sample(2000), expect: []),
        Step(at: 3, input: .iceState(pc1, .connected), expect: []),
        Step(at: 4, input: sample(2000), expect: [.emit(.didDisconnect), window(1, 34), .restartIce(h1), restartTimer(1, 9)]),
    ]

    static let cases: [(String, [Step])] = [
        ("connects once, on ICE or on the router's webrtcup", connected + [
            Step(at: 1, input: .routerMediaUp(h1), expect: []),
            Step(at: 1, input: .iceState(pc1, .completed), expect: []),
        ]),
        ("connects on rising bytes when ICE says nothing", [
            Step(at: 0, input: .peerConnectionStarted(pc1, h1), expect: []),
            Step(at: 0, input: sample(0), expect: []),
            Step(at: 1, input: sample(500), expect: [.emit(.didConnect)]),
        ]),
        ("flat bytes for 3 s disconnect before ICE does", stalled),
        ("responses still arriving keep the path alive", connected + [
            Step(at: 2, input: sample(2000, 1), expect: []),
            Step(at: 4, input: sample(2000, 2), expect: []),
            Step(at: 6, input: sample(2000, 2), expect: []),
            Step(at: 7, input: sample(2000, 2), expect: [.emit(.didDisconnect), window(1, 37), .restartIce(h1), restartTimer(1, 12)]),
        ]),
        ("ICE disconnected disconnects at once", connected + [
            Step(at: 2, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 32), .restartIce(h1), restartTimer(1, 7)]),
        ]),
        ("bytes flowing again reconnect; the old window timer is then ignored", stalled + [
            Step(at: 6, input: sample(2000), expect: []),
            Step(at: 7, input: sample(2600), expect: [.emit(.didReconnect)]),
            Step(at: 9, input: fire(.restartTimeout, 1), expect: []),
            Step(at: 34, input: fire(.reconnectWindow, 1), expect: []),
            Step(at: 35, input: sample(9000), expect: []),
        ]),
        ("the restart's new pair, its counters below the old pair's, reconnects with its first bytes", stalled + [
            Step(at: 5, input: sample(300, 1), expect: [.emit(.didReconnect)]),
        ]),
        ("a new pair that has counted nothing yet does not reconnect", stalled + [
            Step(at: 5, input: sample(0, 2), expect: []),
            Step(at: 6, input: sample(0, 2), expect: []),
            Step(at: 7, input: sample(40, 2), expect: [.emit(.didReconnect)]),
        ]),
        ("a path that answers STUN but carries nothing for 2 s after the restart: restarted again", stalled + [
            Step(at: 4, input: .answerSent(pc1), expect: []),
            Step(at: 5, input: sample(0, 1), expect: []),
            Step(at: 6, input: sample(0, 1), expect: []),
            Step(at: 7, input: sample(0, 1), expect: [.restartIce(h1)]),
            Step(at: 7, input: .answerSent(pc1), expect: []),
            Step(at: 8, input: sample(300, 2), expect: [.emit(.didReconnect)]),
            Step(at: 9, input: fire(.restartTimeout, 1), expect: []),
        ]),
        ("silent-path restarts are not counted: the restart timer keeps its pace", stalled + [
            Step(at: 5, input: sample(0, 1), expect: []),
            Step(at: 7, input: sample(0, 1), expect: [.restartIce(h1)]),
            Step(at: 8, input: sample(0, 1), expect: []),
            Step(at: 9, input: fire(.restartTimeout, 1), expect: [.restartIce(h1), restartTimer(1, 14)]),
            Step(at: 10, input: sample(0, 2), expect: []),
            Step(at: 11, input: sample(0, 2), expect: []),
            Step(at: 12, input: sample(0, 2), expect: [.restartIce(h1)]),
            Step(at: 14, input: fire(.restartTimeout, 1), expect: [.restartIce(h1), restartTimer(1, 19)]),
            Step(at: 19, input: fire(.restartTimeout, 1), expect: [.replacePeerConnection(pc1, h1), restartTimer(1, 24)]),
        ]),
        ("a path that answers nothing (still blacked out) waits for the restart timer", stalled + [
            Step(at: 5, input: sample(2000), expect: []),
            Step(at: 7, input: sample(2000), expect: []),
            Step(at: 8, input: sample(2000), expect: []),
            Step(at: 9, input: fire(.restartTimeout, 1), expect: [.restartIce(h1), restartTimer(1, 14)]),
        ]),
        ("while the router's restart offer is pending, a silent path waits for the answer", stalled + [
            Step(at: 4, input: .offerReceived(h1), expect: []),
            Step(at: 5, input: sample(0, 1), expect: []),
            Step(at: 8, input: sample(0, 1), expect: []),
            Step(at: 8, input: .answerSent(pc1), expect: []),
            Step(at: 9, input: sample(0, 2), expect: []),
            Step(at: 10, input: sample(0, 2), expect: []),
            Step(at: 11, input: sample(0, 2), expect: [.restartIce(h1)]),
        ]),
        ("restarts twice, then a new peer connection, then the window ends it once", stalled + [
            Step(at: 9, input: fire(.restartTimeout, 1), expect: [.restartIce(h1), restartTimer(1, 14)]),
            Step(at: 14, input: fire(.restartTimeout, 1), expect: [.restartIce(h1), restartTimer(1, 19)]),
            Step(at: 19, input: fire(.restartTimeout, 1), expect: [.replacePeerConnection(pc1, h1), restartTimer(1, 24)]),
            Step(at: 20, input: .peerConnectionStarted(pc2, h2), expect: []),
            Step(at: 20, input: .answerSent(pc2), expect: []),
            Step(at: 34, input: fire(.reconnectWindow, 1), expect: [.destroyStream, .tearDown(pc2, h2)]),
            Step(at: 35, input: sample(5000, on: pc2), expect: []),
            Step(at: 36, input: .unsubscribe, expect: []),
            Step(at: 36, input: .streamGone, expect: []),
        ]),
        ("a router hangup means a new handle at once", connected + [
            Step(at: 2, input: .routerHangup(h1), expect: [.emit(.didDisconnect), window(1, 32), .replacePeerConnection(pc1, h1)]),
            Step(at: 3, input: .peerConnectionStarted(pc2, h2), expect: []),
            Step(at: 3, input: .answerSent(pc2), expect: []),
            Step(at: 3, input: sample(0, on: pc2), expect: []),
            Step(at: 4, input: sample(800, on: pc2), expect: [.emit(.didReconnect)]),
            Step(at: 32, input: fire(.reconnectWindow, 1), expect: []),
        ]),
        ("unsubscribe during a reconnect: torn down, no streamDestroyed later", stalled + [
            Step(at: 5, input: .unsubscribe, expect: [.tearDown(pc1, h1)]),
            Step(at: 9, input: fire(.restartTimeout, 1), expect: []),
            Step(at: 34, input: fire(.reconnectWindow, 1), expect: []),
            Step(at: 35, input: .unsubscribe, expect: []),
        ]),
        ("unsubscribe racing streamDestroyed: whichever comes first ends it", connected + [
            Step(at: 2, input: .streamGone, expect: [.tearDown(pc1, h1)]),
            Step(at: 2, input: .unsubscribe, expect: []),
            Step(at: 2, input: .streamGone, expect: []),
        ]),
        ("a restart requested while an offer is pending waits for the answer", connected + [
            Step(at: 2, input: .offerReceived(h1), expect: []),
            Step(at: 2, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), window(1, 32), restartTimer(1, 7)]),
            Step(at: 3, input: .answerSent(pc1), expect: [.restartIce(h1)]),
            Step(at: 4, input: .answerSent(pc1), expect: []),
        ]),
        ("answers, stats and states of an older peer connection are ignored", connected + [
            Step(at: 2, input: .routerHangup(h1), expect: [.emit(.didDisconnect), window(1, 32), .replacePeerConnection(pc1, h1)]),
            Step(at: 3, input: .peerConnectionStarted(pc2, h2), expect: []),
            Step(at: 3, input: sample(0, on: pc2), expect: []),
            Step(at: 4, input: sample(90_000, on: pc1), expect: []),
            Step(at: 4, input: .answerSent(pc1), expect: []),
            Step(at: 4, input: .iceState(pc1, .connected), expect: []),
            Step(at: 4, input: .routerMediaUp(h1), expect: []),
            Step(at: 4, input: .routerHangup(h1), expect: []),
            Step(at: 5, input: sample(100, on: pc2), expect: [.emit(.didReconnect)]),
        ]),
    ]

    @Test(arguments: cases.indices)
    func table(_ index: Int) {
        Self.play(Self.cases[index])
    }

    /// Feeds a case's steps to a fresh machine, expecting each step's actions (the publisher's
    /// tables run here too: it is the same machine).
    static func play(_ named: (String, [Step])) {
        let (name, steps) = named
        var machine = M()
        for (number, step) in steps.enumerated() {
            let actions = machine.receive(step.input, now: .seconds(step.at))
            #expect(actions == step.expect, "\(name), step \(number) at \(step.at) s: \(step.input)")
        }
    }

    @Test func staleInputsAreCounted() {
        var machine = M()
        for step in Self.connected { _ = machine.receive(step.input, now: .seconds(step.at)) }
        _ = machine.receive(Self.sample(5, on: Self.pc2), now: .seconds(2))
        _ = machine.receive(.offerReceived(Self.h2), now: .seconds(2))
        #expect(machine.staleInputs == 2)
    }

    @Test func theWindowIsConfigurable() {
        var machine = M(settings: .init(reconnectWindow: .seconds(10)))
        for step in Self.connected { _ = machine.receive(step.input, now: .seconds(step.at)) }
        let actions = machine.receive(.iceState(Self.pc1, .failed), now: .seconds(2))
        #expect(actions.contains(Self.window(1, 12)))
    }
}
