import Calls
import CallScopeCore
import CallScopeTesting
import Foundation
import Observability
import RTCStats
import Testing

/// What a session tells its stats recorder (`callscope call --record`), and which data-channel
/// messages reach a subscriber's monitor as sender stats.
@Suite(.timeLimit(.minutes(1))) struct CallSessionRecordingTests {
    static func message(seq: Int) -> String {
        #"{"type":"callscope-sender-stats","v":1,"seq":\#(seq),"t":\#(1_800_000_000_000 + seq),"connectionMaxAllocatedBitrate":2000000,"connectionEstimatedBandwidth":900000,"rttMs":5,"lossFraction":0}"#
    }

    @Test func senderStatsOnOurChannelOrTheFeedsRelayedChannelAreRecordedAndFedInOrder() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        let records = Locked<[CallStatsRecord]>([])
        await rig.session.setStatsRecorder { record in records.withLock { $0.append(record) } }
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        // Janus relays the publisher's "callscope" channel under the feed id ("7"); a channel
        // of another name is not sender stats.
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1)))
        rig.engine.emit(.dataChannelMessage(pc, label: "chat", text: Self.message(seq: 2)))
        rig.engine.emit(.dataChannelMessage(pc, label: "callscope", text: Self.message(seq: 3)))
        // Both reach the monitor; the second is rate-limited there, as the fake wall clock
        // stands still (accepted 1 + dropped 1; the "chat" message would make a third).
        await eventually("two messages reached the monitor") { subscriber.statsMonitor.senderStatsCounts.accepted + subscriber.statsMonitor.senderStatsCounts.dropped == 2 }
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 1000, at: 1_800_000_001_000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("a sample recorded") { records.withLock { $0.count } == 3 }
        let summary = records.withLock { $0 }.map { record -> String in
            switch record {
            case .senderStatsReceived(let stream, let pc, let text, let time):
                "sender-stats \(stream.streamId) \(pc) seq \(text.contains("\"seq\":1") ? 1 : 3) at \(Int(time))"
            case .subscriberSample(let stream, let pc, let report): "sample \(stream.streamId) \(pc) \(Int(report.timestamp ?? 0))"
            case .publisherSample(let pc, _): "publisher \(pc)"
            case .receiveLimitChanged(let stream, let pc, let limit, _): "limit \(stream.streamId) \(pc) \(limit.rawValue)"
            }
        }
        #expect(summary == ["sender-stats 7 pc-1 seq 1 at 1800000000000", "sender-stats 7 pc-1 seq 3 at 1800000000000",
                            "sample 7 pc-1 1800000001000"])
        #expect(subscriber.statsMonitor.senderStatsCounts.accepted == 1)
        #expect(subscriber.statsMonitor.senderStatsCounts.dropped == 1)
    }
}
