import CallScopeTesting
@testable import Calls
import Connectivity
import Foundation
import Observability
import RTCStats
import Testing

/// Losing the paths to everyone, and getting one back, starts a discoverability round at once
/// (a firewall changes no interface); the first paths of a call do not, nor a return while the
/// level is still `udp`.
@Suite(.timeLimit(.minutes(1))) struct CallSessionPathsDiscoverabilityTests {
    static func report(_ state: String, at time: Double) -> StatsReport {
        StatsReport(entries: [
            StatsEntry(id: "T01", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP1"))]),
            StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                StatsField("state", .string(state)), StatsField("localCandidateId", .string("L1")),
                StatsField("lastPacketReceivedTimestamp", .number(time)),
            ]),
            StatsEntry(id: "L1", type: .localCandidate, timestamp: time, fields: [StatsField("candidateType", .string("host"))]),
        ])
    }

    @Test func pathsLostAndBackEachStartARound() async throws {
        let probe = FakeDiscoverabilityProbe()
        probe.set(udp: true, tcp: true)
        let clock = ManualClock(), engine = FakeMediaEngine()
        let session = CallSession(signaling: FakeSignaling(participantID: FeedID("100"), feeds: [CallSessionTests.feed7]), engine: engine,
                                  clock: clock, wallClock: { CallSessionTests.t0 },
                                  configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil),
                                  discoverability: SessionDiscoverability(probe: probe, reevaluationInterval: .seconds(3600)))
        let events = Collector(session.events)
        func paths() -> [ConnectionPaths] {
            events.all.compactMap { if case .participantPathsChanged(let p) = $0 { p.paths } else { nil } }
        }
        func states() -> [String] {
            events.all.compactMap { if case .connectionStateChanged(let state) = $0 { state.rawValue } else { nil } }
        }
        /// One stats sample with `state` on the selected pair.
        func sample(_ state: String, second: Double) async {
            engine.setReport(Self.report(state, at: 1_800_000_000_000 + second * 1000), for: PeerConnectionID("pc-1"))
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(1))
        }
        try await session.connect()
        await eventually("udp") { states() == ["udp"] }
        let subscriber = CallSubscriber(stream: try #require(await session.streams.first { $0.streamId == "7" }))
        try await session.subscribe(subscriber)
        await sample("succeeded", second: 1)
        await eventually("udpDirect") { paths() == [.udpDirect] }
        #expect(probe.runs == [.udpBinding], "the first paths start no round")
        // Everything lost: a round at once, confirmed by the lost paths themselves; offline.
        probe.set(udp: false, tcp: false)
        await sample("in-progress", second: 2)
        await eventually("offline") { states() == ["udp", "offline"] }
        #expect(paths() == [.udpDirect, []])
        #expect(probe.runs == [.udpBinding, .udpBinding, .tcpAllocation], "no confirming round: the lost paths witness")
        // The path is back: a round at once, udp adopted.
        probe.set(udp: true, tcp: true)
        await sample("succeeded", second: 3)
        await eventually("udp again") { states() == ["udp", "offline", "udp"] }
        #expect(paths() == [.udpDirect, [], .udpDirect])
        #expect(probe.runs.count == 4)
        // Lost again while UDP still answers: a round, which keeps udp; the return while udp
        // starts none.
        await sample("in-progress", second: 4)
        await eventually("a fifth round") { probe.runs.count == 5 }
        await sample("succeeded", second: 5)
        await eventually("paths back") { paths() == [.udpDirect, [], .udpDirect, [], .udpDirect] }
        await sample("succeeded", second: 6)
        #expect(probe.runs.count == 5, "no round for a return while udp: \(probe.runs)")
        #expect(states() == ["udp", "offline", "udp"])
        await session.disconnect()
    }
}
