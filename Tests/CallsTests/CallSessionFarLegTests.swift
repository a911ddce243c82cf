import CallScopeTesting
@testable import Calls
import Connectivity
import Foundation
import Observability
import RTCStats
import Testing

/// The far leg (issue 12): a participant's own paths to the router arrive in its sender-stats
/// messages (wire version 3) and show on the participant as `remotePaths`; a message with
/// hostile paths is dropped and counted and changes nothing.
@Suite(.timeLimit(.minutes(1))) struct CallSessionFarLegTests {
    static func message(seq: Int, paths: String) -> String {
        #"{"type":"callscope-sender-stats","v":3,"seq":\#(seq),"t":\#(1_800_000_000_000 + seq),"connectionMaxAllocatedBitrate":2000000,"paths":\#(paths)}"#
    }

    @Test func aParticipantsOwnPathsReachItsRemotePathsAndHostileOnesAreDropped() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(3600), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        #expect(await rig.session.participants.first?.remotePaths == nil, "nothing said yet")
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1, paths: #"["udpRelay","tcpRelay"]"#)))
        await eventually("remote paths") { await rig.session.participants.first?.remotePaths == [.udpRelay, .tcpRelay] }
        let changed = rig.events.all.compactMap { event -> ConnectionPaths? in
            if case .participantPathsChanged(let participant) = event { participant.remotePaths } else { nil }
        }
        #expect(changed == [[.udpRelay, .tcpRelay]])
        #expect(await rig.session.participants.first?.paths == [], "our own leg is not theirs")
        // Hostile: an unknown name, a repeated one, a number, too many, not an array.
        let hostile = [#"["satellite"]"#, #"["udpDirect","udpDirect"]"#, "[1]", #"["udpDirect","udpRelay","tcpRelay","udpDirect"]"#, #""udpDirect""#]
        for (index, paths) in hostile.enumerated() {
            rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 2 + index, paths: paths)))
        }
        await eventually("all dropped") { subscriber.statsMonitor.senderStatsCounts.dropped == hostile.count }
        #expect(subscriber.statsMonitor.senderStatsCounts.accepted == 1)
        #expect(await rig.session.participants.first?.remotePaths == [.udpRelay, .tcpRelay], "unchanged by hostile messages")
        await rig.session.disconnect()
    }
}

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
