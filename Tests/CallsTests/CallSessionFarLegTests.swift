import CallScopeCore
import CallScopeTesting
@testable import Calls
import Connectivity
import Foundation
import Observability
import RTCStats
import Testing

/// The far leg (docs/connection-state.md): a participant's own paths to the router arrive in its sender-stats
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
        // The events reach the collector after the session's state changed: wait for them too.
        func changed() -> [ConnectionPaths] {
            rig.events.all.compactMap { event -> ConnectionPaths? in
                if case .participantPathsChanged(let participant) = event { participant.remotePaths } else { nil }
            }
        }
        await eventually("the paths event") { !changed().isEmpty }
        #expect(changed() == [[.udpRelay, .tcpRelay]])
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
    /// What a participant said stands 5 s: when no message came for longer, its paths are
    /// unknown again (`nil`, with a `participantPathsChanged`); a new message brings them back.
    @Test func reportedPathsExpireWhenTheMessagesStop() async throws {
        // A wall clock that moves a second per reading, so the second message is not rate-limited.
        let readings = Locked(0)
        let clock = ManualClock(), engine = FakeMediaEngine()
        let session = CallSession(signaling: FakeSignaling(participantID: FeedID("100"), feeds: [CallSessionTests.feed7]), engine: engine,
                                  clock: clock, wallClock: { CallSessionTests.t0.addingTimeInterval(Double(readings.withLock { $0 += 1; return $0 })) },
                                  configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        let rig = (session: session, engine: engine, clock: clock, events: Collector(session.events))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try #require(await session.streams.first { $0.streamId == "7" }))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 1000, at: 1_800_000_001_000), for: pc)
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1, paths: #"["udpDirect"]"#)))
        await eventually("remote paths") { await rig.session.participants.first?.remotePaths == .udpDirect }
        func remote() -> [ConnectionPaths?] {
            rig.events.all.compactMap { event -> ConnectionPaths?? in
                if case .participantPathsChanged(let participant) = event { .some(participant.remotePaths) } else { nil }
            }
        }
        for second in 1...5 {
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            await eventually("sample \(second)") { rig.engine.calls.filter { $0 == "stats pc-1" }.count >= second }
        }
        #expect(await rig.session.participants.first?.remotePaths == .udpDirect, "5 s: still standing")
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("expired") { await rig.session.participants.first?.remotePaths == nil }
        await eventually("the expiry event") { remote().count >= 2 }
        #expect(remote() == [.udpDirect, nil])
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 2, paths: #"["tcpRelay"]"#)))
        await eventually("back") { await rig.session.participants.first?.remotePaths == .tcpRelay }
        await rig.session.disconnect()
    }
}
