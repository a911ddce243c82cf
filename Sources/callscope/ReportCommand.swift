import Foundation

/// `callscope report FILE... [-o report.html]`: one self-contained HTML page per call.
struct ReportCommand: Command {
    static let name = "report"
    static let summary = "Write a self-contained HTML report with charts for each call."
    static let help = """
    callscope report FILE... [-o report.html]

    One self-contained HTML page per call (no network needed; opens from a mail attachment):
    per-second charts of bitrate per layer and stream (with and without RTP overhead),
    estimated bandwidth, loss, RTT and jitter, frame rate and size; network condition per
    side, degradation source, freezes, pauses and quality events; a summary table on top.
    -o names the output of a single FILE; by default FILE's name + .html, in the current
    directory. Works for every format replay reads.
    """

    var files: [String] = []
    var output: String?

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-o", "--output":
                guard let value = remaining.popFirst() else { throw UsageError("-o takes a file name") }
                output = value
            case let option where option.hasPrefix("-"):
                throw UsageError("unknown option '\(option)' for report")
            default:
                files.append(argument)
            }
        }
        if files.isEmpty { throw UsageError("report needs at least one FILE") }
        if output != nil, files.count > 1 { throw UsageError("-o names one report; give one FILE or leave -o out") }
    }

    /// Where the page of `file` goes: `-o`, else the file's name (without `.gz`) + `.html` in
    /// the current directory.
    func destination(for file: String) -> String {
        if let output { return output }
        var name = URL(fileURLWithPath: file).lastPathComponent
        if name.hasSuffix(".gz") { name.removeLast(3) }
        return name + ".html"
    }

    /// Writes the report page of a replayed call to `target` (also `callscope call --report`'s).
    static func write(_ call: ReplayedCall, to target: String) throws {
        guard FileManager.default.createFile(atPath: target, contents: Data(CallReport(call).html().utf8)) else {
            throw ReplayFileError(message: "\(target): cannot write the report")
        }
    }

    func run() throws -> ExitCode {
        var failures = 0
        for file in files {
            do {
                let call = try replayCallbacks(file: file)
                for problem in call.timeline.problems {
                    FileHandle.standardError.write(Data("callscope: \(file): \(problem) — skipped\n".utf8))
                }
                let target = destination(for: file)
                try Self.write(call, to: target)
                print("\(file) → \(target)")
            } catch let error as ReplayFileError {
                FileHandle.standardError.write(Data("callscope: \(error.message)\n".utf8))
                failures += 1
            }
        }
        return failures > 0 ? .failure : .success
    }
}
