import Foundation

/// `callscope report FILE... [-o report.html]`: one self-contained HTML page per call.
struct ReportCommand {
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

    func run() throws {
        var failures = 0
        for file in files {
            do {
                let call = try replayCallbacks(file: file)
                for problem in call.timeline.problems {
                    FileHandle.standardError.write(Data("callscope: \(file): \(problem) — skipped\n".utf8))
                }
                let report = CallReport(call)
                let target = destination(for: file)
                guard FileManager.default.createFile(atPath: target, contents: Data(report.html().utf8)) else {
                    throw ReplayFileError(message: "\(target): cannot write the report")
                }
                print("\(file) → \(target)")
            } catch let error as ReplayFileError {
                FileHandle.standardError.write(Data("callscope: \(error.message)\n".utf8))
                failures += 1
            }
        }
        if failures > 0 { exit(1) }
    }
}
