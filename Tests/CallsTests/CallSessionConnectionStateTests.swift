import CallScopeCore
import CallScopeTesting
@testable import Calls
import Connectivity
import Foundation
import Testing

/// A probe whose answers the test sets: each probe succeeds or not, at once.
final class FakeDiscoverabilityProbe: DiscoverabilityProbing {
    private let answers = Locked<[DiscoverabilityProbe: Bool]>([:])
    private let log = Locked<[DiscoverabilityProbe]>([])
    private let changes = AsyncStream.makeStream(of: Void.self)
    var tcpRelayConfigured: Bool { true }
    var runs: [DiscoverabilityProbe] { log.withLock { $0 } }

    /// The device's network changed, as the prober sees it.
    func networkChange() { changes.continuation.yield() }
    func networkChanges() -> AsyncStream<Void>? { changes.stream }

    func set(udp: Bool, tcp: Bool) { answers.withLock { $0 = [.udpBinding: udp, .tcpAllocation: tcp] } }

    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
        log.withLock { $0.append(probe) }
        let succeeded = answers.withLock { $0[probe] ?? false }
        return DiscoverabilityProbeResult(probe: probe, succeeded: succeeded, elapsed: .milliseconds(1), detail: "fake")
    }
}

/// `CallSession.connectionState` (docs/spec/sessions.md §5): measured by the injected probe on the
/// session's clock, reported on change only, worse levels only after a confirming round.
@Suite(.timeLimit(.minutes(1))) struct CallSessionConnectionStateTests {
    struct Rig {
        let clock = ManualClock()
        let probe = FakeDiscoverabilityProbe()
        let session: CallSession
        let events: Collector<CallSessionEvent>

        init() {
            session = CallSession(signaling: FakeSignaling(participantID: FeedID("100"), feeds: []), engine: FakeMediaEngine(),
                                  clock: clock, wallClock: { CallSessionTests.t0 },
                                  configuration: CallSessionConfiguration(statsInterval: .seconds(3600), subscriberHealthInterval: nil),
                                  discoverability: SessionDiscoverability(probe: probe, reevaluationInterval: .seconds(30)))
            events = Collector(session.events)
        }

        var states: [String] {
            events.all.compactMap { if case .connectionStateChanged(let state) = $0 { state.rawValue } else { nil } }
        }

        /// Waits for the next round's timer (the stats pump sleeps too), then fires it.
        func nextRound() async {
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
        }
    }

    @Test func levelsChangeOnlyWhenMeasuredAndConfirmed() async throws {
        let rig = Rig()
        rig.probe.set(udp: true, tcp: true)
        #expect(await rig.session.connectionState == nil)
        try await rig.session.connect()
        await eventually("udp") { rig.states == ["udp"] }
        #expect(await rig.session.connectionState == .udp)

        // Same level again: no event.
        await rig.nextRound()
        await eventually("second round") { rig.probe.runs.count == 2 }
        // UDP blocked, the TCP relay works: the round measures tcp, the confirming UDP binding
        // fails too, then tcp is adopted.
        rig.probe.set(udp: false, tcp: true)
        await rig.nextRound()
        await eventually("tcp") { rig.states == ["udp", "tcp"] }
        #expect(rig.probe.runs == [.udpBinding, .udpBinding, .udpBinding, .tcpAllocation, .udpBinding])
        // Everything blocked: offline after the confirming TCP allocation fails.
        rig.probe.set(udp: false, tcp: false)
        await rig.nextRound()
        await eventually("offline") { rig.states == ["udp", "tcp", "offline"] }
        #expect(Array(rig.probe.runs.suffix(3)) == [.udpBinding, .tcpAllocation, .tcpAllocation])
        #expect(await rig.session.connectionState == .offline)
        // The network came back: a network change measures at once, better is adopted at once.
        rig.probe.set(udp: true, tcp: true)
        await rig.session.networkChanged()
        await eventually("udp again") { rig.states == ["udp", "tcp", "offline", "udp"] }
        await rig.session.disconnect()
        #expect(await rig.session.connectionState == nil)
    }

    /// Seed 003: "the SDK reconnects automatically after a network change, and there is no API
    /// to call for it". A change the prober sees starts a round at once: no clock advance, no
    /// `networkChanged()` call.
    @Test func aNetworkChangeTheProberSeesStartsARoundWithoutAnyCall() async throws {
        let rig = Rig()
        rig.probe.set(udp: true, tcp: true)
        try await rig.session.connect()
        await eventually("udp") { rig.states == ["udp"] }
        rig.probe.set(udp: false, tcp: false)
        let before = rig.probe.runs.count
        rig.probe.networkChange()
        await eventually("offline") { rig.states == ["udp", "offline"] }
        #expect(rig.probe.runs.count > before)
        #expect(rig.clock.now.offset == .zero, "no timer fired")
        await rig.session.disconnect()
    }

    @Test func withoutDiscoverabilityThereIsNoConnectionState() async throws {
        let session = CallSession(signaling: FakeSignaling(participantID: FeedID("100"), feeds: []), engine: FakeMediaEngine(),
                                  clock: ManualClock(), wallClock: { CallSessionTests.t0 })
        try await session.connect()
        await session.networkChanged()
        #expect(await session.connectionState == nil)
    }
}
