import CallScopeExport
import Foundation
import Observability
import RTCStats

/// The cost of `callscope call --metrics-port/--push/--otlp` per stats interval, on the shipped
/// recording's own callbacks: what a live call adds to each second (ingesting that second's
/// callbacks), and what each scrape or push costs (a snapshot encoded as Prometheus text or as
/// OTLP JSON).
extension BenchCommand {
    struct LiveMetricsRow {
        /// Stats intervals in the recording (its span in seconds).
        var intervals: Double
        var callbacksPerInterval: Double
        var ingestMicroseconds: Double
        var prometheusMicroseconds: Double
        var otlpMicroseconds: Double
        var series: Int
        var prometheusBytes: Int
        var otlpBytes: Int
    }

    func measureLiveMetrics(recording: [UInt8]) throws -> LiveMetricsRow {
        let callbacks = try replayCallbacks(recording: recording, name: "bench").callbacks
        let times = callbacks.map(\.time)
        let intervals = max(1, ((times.max() ?? 0) - (times.min() ?? 0)) / 1000)
        var collector = CallMetricsCollector()
        for callback in callbacks { collector.ingest(callback) }
        let snapshot = collector.snapshot()
        let otlp = try OTLPHTTPExporter(url: "http://127.0.0.1:4318")
        // Ingest: the whole call, per interval. Encoding: one snapshot, as each scrape or push does.
        let ingest = timePerItem(count: 1) {
            var fresh = CallMetricsCollector()
            for callback in callbacks { fresh.ingest(callback) }
        } / intervals
        let prometheus = timePerItem(count: 1) { _ = PrometheusTextEncoder.encode(collector.snapshot()) }
        let otlpTime = timePerItem(count: 1) { _ = otlp.body(for: collector.snapshot()) }
        return LiveMetricsRow(intervals: intervals, callbacksPerInterval: Double(callbacks.count) / intervals,
                              ingestMicroseconds: ingest, prometheusMicroseconds: prometheus, otlpMicroseconds: otlpTime,
                              series: snapshot.families.map(\.points.count).reduce(0, +),
                              prometheusBytes: PrometheusTextEncoder.encode(snapshot).utf8.count, otlpBytes: otlp.body(for: snapshot).utf8.count)
    }

    /// The row as `callscope bench` prints it.
    static func text(_ row: LiveMetricsRow) -> String {
        String(format: "live metrics (call --metrics-port/--push/--otlp), µs per 1 s interval: ingest %.1f callbacks %.1f; "
            + "a scrape (snapshot + Prometheus text, %d series, %d bytes) %.1f; a push to OTLP (snapshot + JSON, %d bytes) %.1f",
            row.callbacksPerInterval, row.ingestMicroseconds, row.series, row.prometheusBytes, row.prometheusMicroseconds,
            row.otlpBytes, row.otlpMicroseconds)
    }

    /// The row in `callscope bench --json`.
    static func jsonValue(_ row: LiveMetricsRow) -> JSONValue {
        .object([
            StatsField("callbacks_per_interval", .number(round(row.callbacksPerInterval))),
            StatsField("ingest_us_per_interval", .number(round(row.ingestMicroseconds))),
            StatsField("series", .number(Double(row.series))),
            StatsField("prometheus_scrape_us", .number(round(row.prometheusMicroseconds))),
            StatsField("prometheus_bytes", .number(Double(row.prometheusBytes))),
            StatsField("otlp_export_us", .number(round(row.otlpMicroseconds))),
            StatsField("otlp_bytes", .number(Double(row.otlpBytes))),
        ])
    }
}
