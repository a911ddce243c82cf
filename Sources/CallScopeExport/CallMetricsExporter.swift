/// Something that sends a call's metrics somewhere: a Pushgateway, an OTLP collector.
///
/// One call per export; the snapshot is complete (counters are totals since the call started),
/// so a lost export loses nothing but freshness.
public protocol CallMetricsExporter: Sendable {
    /// Sends the snapshot. Throws ``CallMetricsExportError`` when the receiver cannot be reached
    /// or refuses it.
    func export(_ snapshot: CallMetricsSnapshot) async throws
}

/// An export that did not arrive.
public struct CallMetricsExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// The URL is not an `http`/`https` URL.
        case invalidURL
        /// The receiver could not be reached.
        case unreachable
        /// The receiver answered with a non-2xx status.
        case rejected
    }

    /// What went wrong.
    public var code: Code
    /// The URL it was sent to.
    public var url: String
    /// The HTTP status when there was one, else 0.
    public var status: Int
    /// The receiver's answer or the transport error, shortened.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, url: String, status: Int = 0, detail: String = "") {
        self.code = code
        self.url = url
        self.status = status
        self.detail = String(detail.prefix(300))
    }

    /// One line: what happened and what to check.
    public var description: String {
        switch code {
        case .invalidURL: "'\(url)' is not an http(s) URL"
        case .unreachable: "cannot reach \(url): \(detail) (is the receiver running?)"
        case .rejected: "\(url) answered HTTP \(status): \(detail)"
        }
    }
}
