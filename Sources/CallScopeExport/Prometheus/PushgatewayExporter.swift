import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pushes the Prometheus text of each snapshot to a Pushgateway, replacing the group's previous
/// push (`PUT /metrics/job/<job>/<label>/<value>...`).
///
/// The grouping key identifies the run (e.g. `call` = the recording's name): it is the only
/// place a per-call value appears, so the metrics' own labels stay bounded.
public struct PushgatewayExporter: CallMetricsExporter {
    /// The Pushgateway's base URL, e.g. `http://127.0.0.1:9091`.
    public let baseURL: URL
    /// The `job` of the grouping key.
    public let job: String
    /// Further grouping labels, in order.
    public let grouping: [CallMetricLabel]
    private let session: URLSession

    /// Creates an exporter; throws ``CallMetricsExportError`` when `url` is not http(s).
    public init(url: String, job: String = "callscope", grouping: [CallMetricLabel] = [], session: URLSession = .shared) throws {
        self.baseURL = try HTTPUpload.validated(url)
        self.job = job
        self.grouping = grouping
        self.session = session
    }

    /// The URL of this exporter's group. Values go base64url-encoded (`label@base64/...`) so a
    /// `/` or an empty value cannot break the path.
    public var groupURL: URL {
        var path = "metrics/job@base64/\(Self.base64URL(job))"
        for label in grouping {
            path += "/\(PrometheusTextEncoder.sanitizedLabelName(label.name))@base64/\(Self.base64URL(label.value))"
        }
        return baseURL.appendingPathComponent(path)
    }

    /// PUTs the snapshot's text exposition.
    public func export(_ snapshot: CallMetricsSnapshot) async throws {
        let body = Data(PrometheusTextEncoder.encode(snapshot).utf8)
        try await HTTPUpload.send(body, method: "PUT", to: groupURL, contentType: PrometheusTextEncoder.contentType, session: session)
    }

    /// Base64url without padding; an empty value is `=` as the Pushgateway documents.
    static func base64URL(_ text: String) -> String {
        if text.isEmpty { return "=" }
        return Data(text.utf8).base64EncodedString()
            .replacingAll("+", with: "-").replacingAll("/", with: "_").replacingAll("=", with: "")
    }
}
