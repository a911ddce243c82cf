@testable import CallScopeExport
import Foundation
import Testing

/// The OTLP/HTTP JSON body: the shape of `ExportMetricsServiceRequest` in the OTLP JSON mapping
/// (lowerCamelCase fields, 64-bit integers as strings). The full check against the official
/// protobuf definitions runs in Scripts/test_exports.py.
@Suite struct OTLPJSONTests {
    let snapshot = CallMetricsSnapshot(time: 1_700_000_001_000, startTime: 1_700_000_000_500, families: [
        CallMetricFamily(descriptor: .subscriberVideoReceivedBytes, points: [CallMetricPoint(labels: [CallMetricLabel("peer", "sub\"1")], value: 4096)]),
        CallMetricFamily(descriptor: .subscriberVideoBitrate, points: [CallMetricPoint(labels: [], value: 1.25)]),
    ])

    @Test func countersAreCumulativeMonotonicSumsAndGaugesAreGauges() throws {
        let exporter = try OTLPHTTPExporter(url: "http://127.0.0.1:4318", resource: [CallMetricLabel("session.id", "call-1")])
        #expect(exporter.endpoint.absoluteString == "http://127.0.0.1:4318/v1/metrics")
        let body = exporter.body(for: snapshot)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let resourceMetrics = try #require((json["resourceMetrics"] as? [[String: Any]])?.first)
        let attributes = try #require((resourceMetrics["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])
        let keys = attributes.compactMap { $0["key"] as? String }
        #expect(keys.contains("service.name") && keys.contains("session.id") && keys.contains("telemetry.sdk.language"))
        let scope = try #require((resourceMetrics["scopeMetrics"] as? [[String: Any]])?.first)
        let metrics = try #require(scope["metrics"] as? [[String: Any]])
        #expect(metrics.count == 2)

        let bytes = metrics[0]
        #expect(bytes["name"] as? String == "callscope.subscriber.video.received")
        #expect(bytes["unit"] as? String == "By")
        let sum = try #require(bytes["sum"] as? [String: Any])
        #expect(sum["aggregationTemporality"] as? Int == 2)      // AGGREGATION_TEMPORALITY_CUMULATIVE
        #expect(sum["isMonotonic"] as? Bool == true)
        let point = try #require((sum["dataPoints"] as? [[String: Any]])?.first)
        #expect(point["startTimeUnixNano"] as? String == "1700000000500000000")
        #expect(point["timeUnixNano"] as? String == "1700000001000000000")
        #expect(point["asDouble"] as? Double == 4096)
        let attribute = try #require((point["attributes"] as? [[String: Any]])?.first)
        #expect(attribute["key"] as? String == "callscope.peer")
        #expect((attribute["value"] as? [String: Any])?["stringValue"] as? String == "sub\"1")

        let gauge = try #require(metrics[1]["gauge"] as? [String: Any])
        let gaugePoint = try #require((gauge["dataPoints"] as? [[String: Any]])?.first)
        #expect(gaugePoint["startTimeUnixNano"] == nil)
        #expect(gaugePoint["asDouble"] as? Double == 1.25)
    }

    @Test func controlCharactersAreEscaped() {
        #expect(OTLPJSONEncoder.string("a\u{01}\n\"") == "\"a\\u0001\\n\\\"\"")
    }

    @Test func aFullEndpointIsKeptAsGiven() throws {
        #expect(try OTLPHTTPExporter(url: "https://collector.example/v1/metrics").endpoint.absoluteString == "https://collector.example/v1/metrics")
        #expect(throws: CallMetricsExportError.self) { try OTLPHTTPExporter(url: "not a url") }
    }
}
