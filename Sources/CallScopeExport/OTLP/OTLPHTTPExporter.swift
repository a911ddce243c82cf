import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs each snapshot as OTLP/HTTP JSON to a collector's `/v1/metrics`, through URLSession (so
/// it works in an iOS app as it does here).
public struct OTLPHTTPExporter: CallMetricsExporter {
    /// The full endpoint, e.g. `http://127.0.0.1:4318/v1/metrics`.
    public let endpoint: URL
    /// Resource attributes: `service.name`, `service.version`, `telemetry.sdk.*` and the extra
    /// ones given (OTel semantic-convention names, e.g. `session.id`).
    public let resource: [CallMetricLabel]
    private let session: URLSession

    /// The version reported as `service.version` and the scope version.
    public static let version = "0.1.0"

    /// Creates an exporter. `url` may be a collector's base URL (`/v1/metrics` is appended) or
    /// the full metrics endpoint. Throws ``CallMetricsExportError`` when it is not http(s).
    public init(url: String, resource extra: [CallMetricLabel] = [], session: URLSession = .shared) throws {
        var endpoint = try HTTPUpload.validated(url)
        if !endpoint.path.hasSuffix("/v1/metrics") { endpoint = endpoint.appendingPathComponent("v1/metrics") }
        self.endpoint = endpoint
        self.resource = [
            CallMetricLabel("service.name", "callscope"),
            CallMetricLabel("service.version", Self.version),
            CallMetricLabel("telemetry.sdk.name", "callscope"),
            CallMetricLabel("telemetry.sdk.language", "swift"),
            CallMetricLabel("telemetry.sdk.version", Self.version),
        ] + extra
        self.session = session
    }

    /// The request body this exporter sends for `snapshot`.
    public func body(for snapshot: CallMetricsSnapshot) -> String {
        OTLPJSONEncoder.encode(snapshot, resource: resource, scopeVersion: Self.version)
    }

    /// POSTs the snapshot.
    public func export(_ snapshot: CallMetricsSnapshot) async throws {
        try await HTTPUpload.send(Data(body(for: snapshot).utf8), method: "POST", to: endpoint, contentType: OTLPJSONEncoder.contentType, session: session)
    }
}
