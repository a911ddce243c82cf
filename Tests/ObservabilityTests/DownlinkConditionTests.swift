@testable import Observability
import Testing

/// The subscriber's downlink scoring on hand-made intervals: 100 packets expected per second.
@Suite struct DownlinkConditionTests {
    /// Feeds `seconds` intervals with `lost` of every 100 packets lost and returns the adopted
    /// condition after each.
    private func run(_ intervals: [(lost: Double, received: Double)], upstream: Double? = nil, roundTrip: [Double]? = nil) -> [(NetworkCondition, NetworkConditionReason)] {
        var tracker = DownlinkConditionTracker(configuration: StatsEngineConfiguration())
        var inbox = ReceivedSenderStats()
        var lost = 0.0
        var received = 0.0
        var result: [(NetworkCondition, NetworkConditionReason)] = []
        for (index, interval) in intervals.enumerated() {
            let time = Double(index) * 1000
            lost += interval.lost
            received += interval.received
            if let upstream {
                inbox.record(SenderStatsMessage(sequence: index + 1, timestamp: time, connectionMaxAllocatedBitrate: 2_000_000, connectionEstimatedBandwidth: 2_000_000, lossFraction: upstream), at: time - 500)
            }
            _ = tracker.update(lostTotal: lost, receivedTotal: received, time: time, senderStats: upstream == nil ? nil : inbox,
                               estimate: 1_000_000, demand: nil, roundTrip: roundTrip?[index], jitter: nil, videoOn: true)
            result.append(tracker.transportCondition)
        }
        return result
    }

    @Test func steadyRandomLossIsPacketLossJudgedTwoIntervalsLate() {
        let clean = Array(repeating: (lost: 0.0, received: 100.0), count: 4)
        let lossy = Array(repeating: (lost: 8.0, received: 92.0), count: 6)
        let states = run(clean + lossy)
        // Interval 4 (first lossy) is judged at sample 6; 8 % over two intervals: 4 % (fair), then 8 % (warning) twice.
        #expect(states[5].0 == .excellent)
        #expect(states[8] == (.warning, .packetLoss))
    }

    @Test func lossTheSenderStatsReportUpstreamIsNotOurs() {
        let states = run(Array(repeating: (lost: 8.0, received: 92.0), count: 10), upstream: 0.08)
        #expect(states.allSatisfy { !$0.0.isDegraded })
    }

    @Test func lossWithThroughputCollapseIsACap() {
        let clean = Array(repeating: (lost: 0.0, received: 100.0), count: 5)
        let capped = Array(repeating: (lost: 50.0, received: 50.0), count: 5)
        let last = run(clean + capped).last
        #expect(last?.0 == .critical && last?.1 == .bandwidth)
    }

    @Test func lossWithRisingRoundTripIsACap() {
        let intervals = Array(repeating: (lost: 0.0, received: 100.0), count: 4) + Array(repeating: (lost: 20.0, received: 90.0), count: 5)
        let roundTrips = [2.0, 2, 2, 2, 300, 300, 300, 300, 300]
        let last = run(intervals, roundTrip: roundTrips).last
        #expect(last?.0 == .critical && last?.1 == .bandwidth)
    }

    @Test func aBlackoutIsTotalLoss() {
        let intervals = Array(repeating: (lost: 0.0, received: 100.0), count: 4) + Array(repeating: (lost: 0.0, received: 0.0), count: 4)
        let last = run(intervals).last
        #expect(last?.0 == .critical && last?.1 == .packetLoss)
    }
}
