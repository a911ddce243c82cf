/// Whether one live exporter (`callscope call --push` / `--otlp`) is getting through, as a value
/// that says when to tell the user: once when exports start failing, once when they get through
/// again, never for every failed interval (a probe that loses its Pushgateway keeps calling and
/// would otherwise print a line a second).
struct ExporterHealth: Equatable {
    /// What to tell the user after an export.
    enum Notice: Equatable {
        /// Exports stopped getting through; the message of the first failure.
        case lost(String)
        /// Exports get through again after `failures` failed ones.
        case recovered(failures: Int)
    }

    /// Failed exports since the last one that got through.
    private(set) var failures = 0
    /// Exports that got through.
    private(set) var delivered = 0

    /// Whether the most recent export failed.
    var isLost: Bool { failures > 0 }

    /// Notes an export that got through; `.recovered` when the previous one had failed.
    mutating func succeeded() -> Notice? {
        delivered += 1
        defer { failures = 0 }
        return failures > 0 ? .recovered(failures: failures) : nil
    }

    /// Notes a failed export; `.lost` only for the first failure of a run of them.
    mutating func failed(_ error: any Error) -> Notice? {
        failures += 1
        return failures == 1 ? .lost("\(error)") : nil
    }
}
