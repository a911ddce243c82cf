import CallScopeExport
import Foundation

/// `callscope call --metrics-port N [--metrics-host ADDR]`, `--push URL` and `--otlp URL`: the
/// call's metrics while it runs (the names and labels of `replay --push`/`--otlp`).
struct CallLiveMetricsOptions {
    /// The options this type takes, each with a value.
    static let options: Set<String> = ["--metrics-port", "--metrics-host", "--push", "--otlp"]

    static let help = """
    --metrics-port N serves the call's metrics at http://127.0.0.1:N/metrics (Prometheus text,
    the names and labels of `replay --push`) from before the call joins until it has hung up:
    gauges move every stats interval (1 s), counters are the call's running totals and only grow,
    and a subscriber that reconnects keeps its series (they are labelled by peer and stream).
    --metrics-host ADDR listens on another IPv4 address (0.0.0.0 for every interface).
    --push URL (a Pushgateway, grouping key job="callscope", call=the --display name) and
    --otlp URL (an OTLP/HTTP collector, session.id=the --display name) get the metrics every
    interval while the call runs and once more when it ends. An exporter that stops answering
    is reported once on standard error (and once when it answers again); the call goes on.
    Exit codes: 2 for a bad option value (a URL that is not http(s), a port that is not
    0-65535); 1, before joining, when the metrics port cannot be listened on, and after the call
    when its final export to --push or --otlp did not get through (the call itself completed).
    """

    var port: UInt16?
    var host = "127.0.0.1"
    /// `--push` and `--otlp`, parsed and turned into exporters as `replay`'s are.
    var exports = ReplayExportOptions()

    var isEmpty: Bool { port == nil && exports.isEmpty }

    /// Takes one of ``options`` and its value.
    mutating func take(_ option: String, _ value: String) throws {
        switch option {
        case "--metrics-port":
            guard let parsed = UInt16(value) else { throw UsageError("--metrics-port takes a TCP port, 0-65535 (0: any free port)") }
            port = parsed
        case "--metrics-host":
            var address = in_addr()
            guard inet_pton(AF_INET, value, &address) == 1 else { throw UsageError("--metrics-host takes an IPv4 address, e.g. 0.0.0.0") }
            host = value
        default:
            try exports.take(option, value)
        }
    }
}
