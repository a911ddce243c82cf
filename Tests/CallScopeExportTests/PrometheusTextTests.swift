@testable import CallScopeExport
import Testing

/// The exposition format, checked against text written by hand from the Prometheus
/// text-format rules (HELP/TYPE lines, label escaping, integer values without a fraction).
@Suite struct PrometheusTextTests {
    @Test func aSmallSnapshotEncodesExactly() {
        let counter = CallMetricDescriptor(prometheusName: "x_bytes_total", openTelemetryName: "x", help: "Bytes\\sent\nby x.", unit: "By", kind: .counter)
        let gauge = CallMetricDescriptor(prometheusName: "x_bits_per_second", openTelemetryName: "x.rate", help: "Rate.", unit: "bit/s", kind: .gauge)
        let snapshot = CallMetricsSnapshot(time: 2000, startTime: 1000, families: [
            CallMetricFamily(descriptor: counter, points: [CallMetricPoint(labels: [CallMetricLabel("peer", "a\"b\\c\nd")], value: 1234)]),
            CallMetricFamily(descriptor: gauge, points: [CallMetricPoint(labels: [CallMetricLabel("z", "1"), CallMetricLabel("a", "2")], value: 1.5), CallMetricPoint(labels: [], value: 0)]),
        ])
        let expected = """
        # HELP x_bytes_total Bytes\\\\sent\\nby x.
        # TYPE x_bytes_total counter
        x_bytes_total{peer="a\\"b\\\\c\\nd"} 1234
        # HELP x_bits_per_second Rate.
        # TYPE x_bits_per_second gauge
        x_bits_per_second{a="2",z="1"} 1.5
        x_bits_per_second 0

        """
        #expect(PrometheusTextEncoder.encode(snapshot) == expected)
    }

    @Test(arguments: [(0.0, "0"), (42.0, "42"), (-3.0, "-3"), (0.25, "0.25"), (Double.nan, "NaN"), (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (1e20, "1e+20")])
    func valuesAreFormattedAsPrometheusReadsThem(value: Double, text: String) {
        #expect(PrometheusTextEncoder.format(value) == text)
    }

    @Test(arguments: [("peer", "peer"), ("session.id", "session_id"), ("9lives", "_lives"), ("", "_")])
    func labelNamesAreMadeValid(name: String, valid: String) {
        #expect(PrometheusTextEncoder.sanitizedLabelName(name) == valid)
    }

    @Test func everyCatalogNameFollowsTheConventions() {
        let names = CallMetricDescriptor.catalog.map(\.prometheusName)
        #expect(Set(names).count == names.count)
        for descriptor in CallMetricDescriptor.catalog {
            #expect(descriptor.prometheusName.hasPrefix("callscope_"))
            #expect(descriptor.prometheusName.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" })
            #expect(descriptor.prometheusName.hasSuffix("_total") == (descriptor.kind == .counter), "\(descriptor.prometheusName)")
            #expect(!descriptor.prometheusName.contains("milli") && !descriptor.prometheusName.contains("kilo"), "base units only")
            #expect(descriptor.openTelemetryName.hasPrefix("callscope.") && !descriptor.openTelemetryName.hasSuffix("_total"))
        }
    }

    @Test func pushgatewayGroupValuesAreBase64URL() throws {
        // "a/b?" is YS9iPw== in base64; base64url without padding: YS9iPw
        let exporter = try PushgatewayExporter(url: "http://127.0.0.1:9091", grouping: [CallMetricLabel("call", "a/b?"), CallMetricLabel("empty", "")])
        #expect(exporter.groupURL.absoluteString == "http://127.0.0.1:9091/metrics/job@base64/Y2FsbHNjb3Bl/call@base64/YS9iPw/empty@base64/=")
        #expect(throws: CallMetricsExportError.self) { try PushgatewayExporter(url: "ftp://host") }
    }
}
