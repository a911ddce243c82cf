import CallScopeTestSupport
import Observability
import RTCStats
import Testing

/// A sample is judged with the sender-stats messages that had arrived by its report's time.
/// Live, a message can arrive after Chromium took a report but before the SDK fed it; the
/// recording holds the message with its later arrival time, and a replay (time order) feeds it
/// after that sample. Both must give the same callbacks.
@Suite struct SenderStatsArrivalTests {
    final class Catch: SubscriberNetworkStatsDelegate, @unchecked Sendable {
        // @unchecked: touched only from the test's own task, through the monitor's synchronous calls.
        var senderStats: [SenderStats?] = []
        func subscriber(_ monitor: SubscriberStatsMonitor, videoNetworkStatsUpdated stats: SubscriberVideoNetworkStats) {
            senderStats.append(stats.senderStats)
        }
    }

    enum Input {
        case report(at: Double)
        case message(estimate: Int, sequence: Int, at: Double)
    }

    private func run(_ inputs: [Input]) -> [SenderStats?] {
        let subscriber = SubscriberStatsMonitor()
        let catcher = Catch()
        subscriber.delegate = catcher
        for input in inputs {
            switch input {
            case .report(let time):
                subscriber.ingest(StatsReport(entries: [
                    Synthetic.entry("IT1", .inboundRTP, at: time, ["kind": "video", "bytesReceived": time * 100, "packetsReceived": time / 10, "packetsLost": 0]),
                ]), peerConnection: "sub-1")
            case .message(let estimate, let sequence, let time):
                let text = #"{"type":"callscope-sender-stats","v":1,"seq":\#(sequence),"t":\#(Int(time)),"#
                    + #""connectionMaxAllocatedBitrate":1000000,"connectionEstimatedBandwidth":\#(estimate)}"#
                subscriber.receiveSenderStats(Array(text.utf8), at: time)
            }
        }
        return catcher.senderStats
    }

    private func stats(_ estimate: Double) -> SenderStats {
        SenderStats(connectionMaxAllocatedBitrate: 1_000_000, connectionEstimatedBandwidth: estimate)
    }

    @Test func aMessageArrivingAfterTheReportWasTakenCountsFromTheNextReport() {
        // Fed before the 1000 ms report, but it arrived at 1040 ms: not yet part of that report.
        let live = run([.report(at: 0), .message(estimate: 800_000, sequence: 1, at: 1040), .report(at: 1000), .report(at: 2000)])
        #expect(live == [nil, nil, stats(800_000)])
    }

    @Test func liveOrderAndTimeOrderGiveTheSameCallbacks() {
        let live: [Input] = [
            .report(at: 0),
            .message(estimate: 800_000, sequence: 1, at: 40),
            .message(estimate: 700_000, sequence: 2, at: 1040), .report(at: 1000),
            .report(at: 2000),
            .message(estimate: 600_000, sequence: 3, at: 3010), .report(at: 3000),
            .report(at: 4000),
        ]
        let replayed: [Input] = [
            .report(at: 0),
            .message(estimate: 800_000, sequence: 1, at: 40),
            .report(at: 1000), .message(estimate: 700_000, sequence: 2, at: 1040),
            .report(at: 2000),
            .report(at: 3000), .message(estimate: 600_000, sequence: 3, at: 3010),
            .report(at: 4000),
        ]
        // By hand: at 1000 only message 1 had arrived, at 2000 and 3000 message 2, at 4000 message 3.
        let expected = [nil, stats(800_000), stats(700_000), stats(700_000), stats(600_000)]
        #expect(run(live) == expected)
        #expect(run(replayed) == expected)
    }
}
