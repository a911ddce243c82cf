@testable import CallScopeExport
import Observability
import Testing

/// Metrics from callbacks, with the expected values worked out by hand from the fixtures.
@Suite struct CallMetricsCollectorTests {
    private func value(_ snapshot: CallMetricsSnapshot, _ name: String, _ labels: [String: String]) -> Double? {
        snapshot.family(prometheusName: name)?.points.first { point in
            Dictionary(uniqueKeysWithValues: point.labels.map { ($0.name, $0.value) }) == labels
        }?.value
    }

    @Test func countersTakeTheLatestTotalsAndGaugesTheLatestValue() {
        var collector = CallMetricsCollector()
        collector.ingest(Fixture.subscriberVideo(at: 1_000, bytes: 100, received: 10, lost: 0, bitrate: 800))
        collector.ingest(Fixture.subscriberVideo(at: 2_000, bytes: 5_100, received: 60, lost: 3, bitrate: 40_000, freezes: 2, freezeMs: 1_500))
        let snapshot = collector.snapshot()
        let stream = ["peer": "subscriber", "stream": "cam"]
        #expect(value(snapshot, "callscope_subscriber_video_received_bytes_total", stream) == 5_100)
        #expect(value(snapshot, "callscope_subscriber_video_lost_packets_total", stream) == 3)
        #expect(value(snapshot, "callscope_subscriber_video_payload_bits_per_second", stream) == 40_000)
        #expect(value(snapshot, "callscope_subscriber_video_bits_per_second", stream) == 42_000)
        #expect(value(snapshot, "callscope_subscriber_video_freezes_total", stream) == 2)
        #expect(value(snapshot, "callscope_subscriber_video_freeze_seconds_total", stream) == 1.5)
        #expect(value(snapshot, "callscope_last_sample_timestamp_seconds", [:]) == 2)
        #expect(snapshot.startTime == 1_000 && snapshot.time == 2_000)
    }

    @Test func secondsPerConditionCountEachIntervalForTheConditionReportedAtItsEnd() {
        var collector = CallMetricsCollector()
        collector.ingest(Fixture.subscriberLink(at: 10_000, downlink: .good, source: .none))       // first: no interval
        collector.ingest(Fixture.subscriberLink(at: 11_000, downlink: .good, source: .none))       // 1 s good
        collector.ingest(Fixture.subscriberLink(at: 13_000, downlink: .warning, source: .local))   // 2 s warning
        collector.ingest(Fixture.subscriberLink(at: 13_500, downlink: .critical, source: .local))  // 0.5 s critical
        let snapshot = collector.snapshot()
        let downlink = ["peer": "subscriber", "stream": "cam", "link": "downlink"]
        #expect(value(snapshot, "callscope_network_condition_seconds_total", downlink.merging(["condition": "good"]) { $1 }) == 1)
        #expect(value(snapshot, "callscope_network_condition_seconds_total", downlink.merging(["condition": "warning"]) { $1 }) == 2)
        #expect(value(snapshot, "callscope_network_condition_seconds_total", downlink.merging(["condition": "critical"]) { $1 }) == 0.5)
        #expect(value(snapshot, "callscope_network_condition_seconds_total", downlink.merging(["condition": "excellent"]) { $1 }) == 0)
        #expect(value(snapshot, "callscope_network_condition", downlink.merging(["condition": "critical"]) { $1 }) == 1)
        #expect(value(snapshot, "callscope_network_condition", downlink.merging(["condition": "warning"]) { $1 }) == 0)
        let stream = ["peer": "subscriber", "stream": "cam"]
        #expect(value(snapshot, "callscope_degradation_source_seconds_total", stream.merging(["source": "local"]) { $1 }) == 2.5)
        #expect(value(snapshot, "callscope_degradation_source_seconds_total", stream.merging(["source": "none"]) { $1 }) == 1)
        #expect(value(snapshot, "callscope_degradation_source", stream.merging(["source": "local"]) { $1 }) == 1)
        // A state set has one series per case, whatever happened: bounded cardinality.
        #expect(snapshot.family(prometheusName: "callscope_network_condition")?.points.count == 2 * NetworkCondition.allCases.count)
    }

    @Test func aLayerThatStopsSendingDisappears() {
        var collector = CallMetricsCollector()
        collector.ingest(Fixture.publisherVideo(at: 1_000, layers: [("q", 100_000), ("h", 300_000)]))
        collector.ingest(Fixture.publisherVideo(at: 2_000, layers: [("q", 120_000)]))
        let points = collector.snapshot().family(prometheusName: "callscope_publisher_layer_payload_bits_per_second")?.points ?? []
        #expect(points.map(\.value) == [120_000])
        #expect(points.first?.labels == [CallMetricLabel("layer", "q"), CallMetricLabel("peer", "publisher")])
    }

    @Test func aProbesNextCallDropsThePreviousStreamsAndCountsNoGapInAnyCondition() {
        var collector = CallMetricsCollector()
        collector.ingest(Fixture.publisherLink(at: 1_000, condition: .good))
        collector.ingest(Fixture.publisherLink(at: 2_000, condition: .good))                      // 1 s good
        collector.ingest(Fixture.subscriberVideo(at: 2_000, bytes: 5_000, received: 5, lost: 0, bitrate: 40_000))
        collector.startNewCall()
        collector.ingest(Fixture.publisherLink(at: 302_000, condition: .good))                    // 300 s later: a new interval, not 300 s good
        collector.ingest(Fixture.publisherLink(at: 304_000, condition: .fair))                    // 2 s fair
        let snapshot = collector.snapshot()
        let uplink = ["peer": "publisher", "link": "uplink"]
        #expect(value(snapshot, "callscope_network_condition_seconds_total", uplink.merging(["condition": "good"]) { $1 }) == 1)
        #expect(value(snapshot, "callscope_network_condition_seconds_total", uplink.merging(["condition": "fair"]) { $1 }) == 2)
        #expect(snapshot.family(prometheusName: "callscope_subscriber_video_received_bytes_total") == nil)
        #expect(snapshot.families.allSatisfy { $0.points.allSatisfy { !$0.labels.contains { $0.name == "stream" } } })
    }
}
