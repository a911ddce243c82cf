import CallScopeExport
import Foundation
import Observability

/// The three forms of `callscope analyze`'s result: an aligned table, CSV and JSON, with the
/// same columns.
enum AnalyzeOutput {
    static let conditions: [NetworkCondition] = [.excellent, .good, .fair, .warning, .critical, .unknown]

    /// Machine column names (CSV header, JSON keys).
    static let columns = ["call", "peer", "direction", "stream", "duration_s", "mean_bitrate_bps", "p5_bitrate_bps", "packets_lost", "loss_percent", "freezes", "freeze_s"]
        + conditions.map { "\($0.rawValue)_s" } + ["dominant_degradation_source"]

    private static func fields(_ row: StreamSummary) -> [String] {
        [row.call, row.peer, row.direction.rawValue, row.stream,
         String(format: "%.1f", row.duration), String(format: "%.0f", row.meanBitrate), String(format: "%.0f", row.p5Bitrate),
         String(row.packetsLost), String(format: "%.2f", row.lossFraction * 100), String(row.freezeCount), String(format: "%.1f", row.freezeDuration)]
            + conditions.map { String(format: "%.1f", row.conditionSeconds[$0] ?? 0) } + [row.dominantDegradationSource.rawValue]
    }

    static func table(rows: [StreamSummary], total: StreamSummary) -> String {
        let header = ["call", "peer", "dir", "stream", "dur s", "mean kbps", "p5 kbps", "loss %", "freezes", "freeze s"]
            + conditions.map { "\($0.rawValue) s" } + ["dominant source"]
        func cells(_ row: StreamSummary) -> [String] {
            [URL(fileURLWithPath: row.call).lastPathComponent, row.peer, row.direction == .sending ? "send" : row.direction == .receiving ? "recv" : "", row.stream,
             String(format: "%.0f", row.duration), String(format: "%.0f", row.meanBitrate / 1000), String(format: "%.0f", row.p5Bitrate / 1000),
             String(format: "%.2f", row.lossFraction * 100), String(row.freezeCount), String(format: "%.1f", row.freezeDuration)]
                + conditions.map { String(format: "%.0f", row.conditionSeconds[$0] ?? 0) } + [row.dominantDegradationSource.rawValue]
        }
        let body = rows.map(cells)
        let totalCells = cells(total)
        let all = [header] + body + [totalCells]
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index < 4 ? cell + padding : padding + cell      // text left, numbers right
            }.joined(separator: "  ")
        }
        var output = line(header) + "\n"
        for cells in body { output += line(cells) + "\n" }
        output += String(repeating: "─", count: widths.reduce(0, +) + 2 * (widths.count - 1)) + "\n"
        output += line(totalCells) + "\n"
        return output
    }

    static func csv(rows: [StreamSummary], total: StreamSummary) -> String {
        func quoted(_ value: String) -> String {
            value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
        }
        var output = columns.joined(separator: ",") + "\n"
        for row in rows + [total] { output += fields(row).map(quoted).joined(separator: ",") + "\n" }
        return output
    }

    static func json(rows: [StreamSummary], total: StreamSummary, skipped: [(file: String, error: String)], files: Int) -> String {
        func object(_ row: StreamSummary) -> [String: Any] {
            var conditionSeconds: [String: Double] = [:]
            for condition in conditions { conditionSeconds[condition.rawValue] = row.conditionSeconds[condition] ?? 0 }
            var degradationSeconds: [String: Double] = [:]
            for source in NetworkDegradationSource.allCases { degradationSeconds[source.rawValue] = row.degradationSeconds[source] ?? 0 }
            return [
                "call": row.call, "peer": row.peer, "direction": row.direction.rawValue, "stream": row.stream,
                "duration": row.duration, "meanBitrate": row.meanBitrate, "p5Bitrate": row.p5Bitrate,
                "packetsLost": row.packetsLost, "packetsExpected": row.packetsExpected, "lossFraction": row.lossFraction,
                "freezeCount": row.freezeCount, "freezeDuration": row.freezeDuration,
                "conditionSeconds": conditionSeconds, "degradationSeconds": degradationSeconds,
                "dominantDegradationSource": row.dominantDegradationSource.rawValue,
            ]
        }
        let document: [String: Any] = [
            "files": files,
            "rows": rows.map(object),
            "total": object(total),
            "skipped": skipped.map { ["file": $0.file, "error": $0.error] },
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted]) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
