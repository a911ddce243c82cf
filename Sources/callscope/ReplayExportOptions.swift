import CallScopeExport
import Dispatch
import Foundation
import Observability

/// `--push URL` and `--otlp URL` of `callscope replay`: after each file, its final metrics go to
/// a Pushgateway (grouping key `job="callscope"`, `call` = the file's name) and/or an OTLP/HTTP
/// collector (resource attribute `session.id` = the file's name).
struct ReplayExportOptions {
    var pushgatewayURL: String?
    var otlpURL: String?

    var isEmpty: Bool { pushgatewayURL == nil && otlpURL == nil }

    /// Consumes `option` (and its value) when it is one of ours; returns false otherwise.
    mutating func parse(_ option: String, _ parser: inout ArgumentParser) throws -> Bool {
        guard option == "--push" || option == "--otlp" else { return false }
        try take(option, parser.value(of: option))
        return true
    }

    /// Sets `--push` or `--otlp` to `value`; throws ``UsageError`` for a URL that is not http(s).
    mutating func take(_ option: String, _ value: String) throws {
        let keyPath: WritableKeyPath<ReplayExportOptions, String?> = option == "--push" ? \.pushgatewayURL : \.otlpURL
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw UsageError("\(option) takes an http(s) URL, e.g. \(option == "--push" ? "http://127.0.0.1:9091" : "http://127.0.0.1:4318")")
        }
        self[keyPath: keyPath] = value
    }

    /// The exporters for one replayed file.
    func exporters(file: String) throws -> [any CallMetricsExporter] {
        try exporters(call: URL(fileURLWithPath: file).lastPathComponent)
    }

    /// The exporters for the call named `call` (the grouping key's `call`, OTLP's `session.id`).
    func exporters(call: String) throws -> [any CallMetricsExporter] {
        try namedExporters(call: call).map(\.exporter)
    }

    /// ``exporters(call:)`` with the option each came from (`--push`, `--otlp`).
    func namedExporters(call: String) throws -> [(option: String, exporter: any CallMetricsExporter)] {
        var exporters: [(option: String, exporter: any CallMetricsExporter)] = []
        if let pushgatewayURL {
            exporters.append(("--push", try PushgatewayExporter(url: pushgatewayURL, grouping: [CallMetricLabel("call", call)])))
        }
        if let otlpURL {
            exporters.append(("--otlp", try OTLPHTTPExporter(url: otlpURL, resource: [CallMetricLabel("session.id", call)])))
        }
        return exporters
    }

    /// Sends `snapshot` to every exporter, waiting for each; throws the first failure.
    func send(_ snapshot: CallMetricsSnapshot, file: String) throws {
        for exporter in try exporters(file: file) {
            try BlockingTask.run { try await exporter.export(snapshot) }
        }
    }
}

/// Runs async work to completion from the synchronous command line.
enum BlockingTask {
    private final class Outcome: @unchecked Sendable {
        // @unchecked: `error` is written once by the task before `done` is signalled and read
        // only after the wait returns.
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)
    }

    static func run(_ work: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Outcome()
        Task.detached {
            do { try await work() } catch { outcome.error = error }
            outcome.done.signal()
        }
        outcome.done.wait()
        if let error = outcome.error { throw error }
    }
}
