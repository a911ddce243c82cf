import CallScopeCore
import CallScopeExport
import Foundation
import Observability

/// The metrics of a running `callscope call`: every stats callback goes into one
/// ``CallMetricsCollector`` (the one `replay --push`/`--otlp` and `report` use), whose snapshot
/// `--metrics-port` serves on each scrape and `--push`/`--otlp` send every interval.
final class CallLiveMetrics: Sendable {
    private let collector = Locked(CallMetricsCollector())
    /// Families set from outside the callbacks (`callscope probe`'s own), served after the call's.
    private let extraFamilies = Locked<[CallMetricFamily]>([])
    private let server: MetricsHTTPServer?
    private let exporters: [LiveExporter]
    /// Where the exporters' notices go (standard error; a test collects them).
    private let notify: @Sendable (String) -> Void

    /// Starts serving `/metrics` when `options.port` is set; throws ``MetricsServerError`` when
    /// the port cannot be listened on.
    convenience init(_ options: CallLiveMetricsOptions, call: String,
                     notify: @escaping @Sendable (String) -> Void = CallLiveMetrics.standardErrorLine) throws {
        try self.init(port: options.port, host: options.host, exporters: options.exports.namedExporters(call: call), notify: notify)
    }

    /// Serves `/metrics` on `host:port` when `port` is set, and sends to `exporters` (each named
    /// by its option, for the notices).
    init(port: UInt16?, host: String = "127.0.0.1", exporters: [(option: String, exporter: any CallMetricsExporter)],
         notify: @escaping @Sendable (String) -> Void = CallLiveMetrics.standardErrorLine) throws {
        self.notify = notify
        self.exporters = exporters.map { LiveExporter(option: $0.option, exporter: $0.exporter) }
        if let port {
            let (collector, extraFamilies) = (collector, extraFamilies)
            server = try MetricsHTTPServer(host: host, port: port) {
                PrometheusTextEncoder.encode(Self.snapshot(collector, extraFamilies))
            }
        } else {
            server = nil
        }
    }

    /// A notice as `callscope call` prints it: one line on standard error.
    @Sendable static func standardErrorLine(_ text: String) {
        FileHandle.standardError.write(Data("callscope call: \(text)\n".utf8))
    }

    /// The port `/metrics` is served on, when it is.
    var port: UInt16? { server?.port }

    /// Adds one stats callback (its stream already filled in).
    func ingest(_ callback: StatsCallback) {
        collector.withLock { $0.ingest(callback) }
    }

    /// The metrics as they stand.
    func snapshot() -> CallMetricsSnapshot {
        Self.snapshot(collector, extraFamilies)
    }

    private static func snapshot(_ collector: Locked<CallMetricsCollector>, _ extra: Locked<[CallMetricFamily]>) -> CallMetricsSnapshot {
        var snapshot = collector.withLock { $0.snapshot() }
        snapshot.families += extra.withLock { $0 }
        return snapshot
    }

    /// Replaces the families served after the call's own (`callscope probe`'s metrics).
    func setExtraFamilies(_ families: [CallMetricFamily]) {
        extraFamilies.withLock { $0 = families }
    }

    /// A probe's next call starts (``CallMetricsCollector/startNewCall()``).
    func startNewCall() {
        collector.withLock { $0.startNewCall() }
    }

    /// Sends the snapshot to every exporter every `interval` until cancelled (nothing before the
    /// first callback). One task per exporter, so a receiver that times out delays only itself.
    func exportPeriodically(every interval: Duration) -> [Task<Void, Never>] {
        exporters.map { exporter in
            Task {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    await self.exportNow(to: exporter)
                }
            }
        }
    }

    /// One interval's export: the snapshot as it stands to every exporter (each after the
    /// other); nothing before the first callback.
    func exportNow() async {
        for exporter in exporters { await exportNow(to: exporter) }
    }

    private func exportNow(to exporter: LiveExporter) async {
        let snapshot = snapshot()
        guard !snapshot.families.isEmpty else { return }
        _ = await export(snapshot, with: exporter)
    }

    /// The final export, after the call: throws the first exporter's failure (after trying all),
    /// and stops serving `/metrics`.
    func finish() async throws {
        server?.stop()
        let snapshot = snapshot()
        var firstFailure: (any Error)?
        for exporter in exporters {
            if let error = await export(snapshot, with: exporter), firstFailure == nil {
                firstFailure = CallLiveExportFailure(description: "\(exporter.option): the final export did not get through: \(error)")
            }
        }
        if let firstFailure { throw firstFailure }
    }

    /// Sends one snapshot; prints the exporter's notice, if any; returns the error.
    private func export(_ snapshot: CallMetricsSnapshot, with exporter: LiveExporter) async -> (any Error)? {
        do {
            try await exporter.exporter.export(snapshot)
            if case .recovered(let failures) = exporter.health.withLock({ $0.succeeded() }) {
                notify("\(exporter.option): exports get through again (\(failures) interval\(failures == 1 ? "" : "s") lost)")
            }
            return nil
        } catch {
            if case .lost(let message) = exporter.health.withLock({ $0.failed(error) }) {
                notify("\(exporter.option): \(message); the call goes on, retrying every interval (said once)")
            }
            return error
        }
    }
}

/// One `--push` or `--otlp` exporter and how its exports fare.
private struct LiveExporter: Sendable {
    let option: String
    let exporter: any CallMetricsExporter
    let health = Locked(ExporterHealth())
}

/// The final export of a live call that did not get through (the message says where and why).
struct CallLiveExportFailure: Error, CustomStringConvertible {
    let description: String
}
