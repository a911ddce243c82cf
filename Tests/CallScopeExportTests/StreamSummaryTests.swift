@testable import CallScopeExport
import Observability
import Testing

/// `callscope analyze` rows from hand-made callbacks.
@Suite struct StreamSummaryTests {
    static let percentileCases: [(samples: [Double], expected: Double)] = [
        ([], 0),
        ([7], 7),
        ([5, 1, 3], 1),                                          // ⌈0.15⌉ = rank 1
        (Array(1...20).map { Double($0) }, 1),                   // ⌈1.0⌉ = rank 1
        (Array(1...21).map { Double($0) }, 2),                   // ⌈1.05⌉ = rank 2
        (Array(1...100).reversed().map { Double($0) }, 5),       // ⌈5⌉ = rank 5
    ]

    @Test(arguments: percentileCases)
    func percentile5IsTheNearestRank(samples: [Double], expected: Double) {
        #expect(StreamSummary.percentile5(samples) == expected)
    }

    @Test func aSubscribedStreamIsSummarisedFromItsCallbacks() throws {
        var builder = CallSummaryBuilder(call: "call-a")
        // Bitrates 999 (first: no rate yet, left out), 100, 300, 200; loss 5 of 100 expected.
        builder.ingest(Fixture.subscriberVideo(at: 0, bytes: 0, received: 0, lost: 0, bitrate: 999))
        builder.ingest(Fixture.subscriberLink(at: 0, downlink: .good, source: .none))
        builder.ingest(Fixture.subscriberVideo(at: 1_000, bytes: 0, received: 30, lost: 0, bitrate: 100))
        builder.ingest(Fixture.subscriberLink(at: 1_000, downlink: .good, source: .none))
        builder.ingest(Fixture.subscriberVideo(at: 2_000, bytes: 0, received: 60, lost: 2, bitrate: 300, freezes: 1, freezeMs: 800))
        builder.ingest(Fixture.subscriberLink(at: 2_000, downlink: .warning, source: .remote))
        builder.ingest(Fixture.subscriberVideo(at: 3_000, bytes: 0, received: 95, lost: 5, bitrate: 200, freezes: 1, freezeMs: 800))
        builder.ingest(Fixture.subscriberLink(at: 3_000, downlink: .warning, source: .remote))
        builder.ingest(Fixture.publisherVideo(at: 3_000, layers: [("q", 50), ("f", 150)]))
        let rows = builder.summaries()
        #expect(rows.count == 2)
        let row = try #require(rows.first)
        #expect(row.direction == .receiving && row.peer == "subscriber" && row.stream == "cam")
        #expect(row.duration == 3)
        #expect(row.meanBitrate == 200)
        #expect(row.p5Bitrate == 100)
        #expect(row.packetsLost == 5 && row.packetsExpected == 100 && row.lossFraction == 0.05)
        #expect(row.freezeCount == 1 && row.freezeDuration == 0.8)
        #expect(row.conditionSeconds == [.good: 1, .warning: 2])
        #expect(row.dominantDegradationSource == .remote)
        // The publisher's only callback has no rate yet.
        #expect(rows[1].direction == .sending && rows[1].bitrateSamples.isEmpty && rows[1].packetsLost == 10)
    }

    @Test func theTotalPoolsEveryRow() {
        var a = StreamSummary(call: "a", peer: "p", stream: "s", direction: .receiving)
        a.duration = 10
        a.bitrateSamples = [100, 200]
        a.packetsLost = 1
        a.packetsExpected = 10
        a.conditionSeconds = [.good: 10]
        a.degradationSeconds = [.local: 3, .none: 7]
        var b = StreamSummary(call: "b", peer: "p", stream: "s", direction: .receiving)
        b.duration = 5
        b.bitrateSamples = [600]
        b.packetsLost = 1
        b.packetsExpected = 30
        b.conditionSeconds = [.good: 2, .critical: 3]
        b.degradationSeconds = [.remote: 5]
        let total = StreamSummary.total(of: [a, b])
        #expect(total.duration == 15)
        #expect(total.meanBitrate == 300)            // (100 + 200 + 600) / 3
        #expect(total.p5Bitrate == 100)
        #expect(total.lossFraction == 0.05)          // 2 / 40
        #expect(total.conditionSeconds == [.good: 12, .critical: 3])
        #expect(total.dominantDegradationSource == .remote)
        #expect(total.stream == "2 calls")
    }
}
