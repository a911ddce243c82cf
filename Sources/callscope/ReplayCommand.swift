import CallScopeReplay
import Foundation
import Observability
import RTCStats

/// `callscope replay`: reads each file, runs it through one engine per file, prints the callbacks.
struct ReplayCommand {
    enum Format: String { case text, ndjson }
    typealias SenderStatsMode = ReplayDriver.SenderStatsMode

    var files: [String] = []
    var format = Format.text
    var senderStats = SenderStatsMode.auto

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--format":
                guard let value = remaining.popFirst(), let parsed = Format(rawValue: value) else {
                    throw UsageError("--format takes 'text' or 'ndjson'")
                }
                format = parsed
            case let option where option.hasPrefix("--format="):
                guard let parsed = Format(rawValue: String(option.dropFirst("--format=".count))) else {
                    throw UsageError("--format takes 'text' or 'ndjson'")
                }
                format = parsed
            case "--sender-stats":
                guard let value = remaining.popFirst(), let parsed = SenderStatsMode(rawValue: value) else {
                    throw UsageError("--sender-stats takes 'auto' or 'off'")
                }
                senderStats = parsed
            case let option where option.hasPrefix("-") && option != "-":
                throw UsageError("unknown option '\(option)' for replay")
            default:
                files.append(argument)
            }
        }
        if files.isEmpty { files = [ShippedRecordings.defaultRecording] }
    }

    func run() throws {
        var failures = 0
        for file in files {
            do {
                try replay(file)
            } catch let error as ReplayFileError {
                FileHandle.standardError.write(Data("callscope: \(error.message)\n".utf8))
                failures += 1
            }
        }
        if failures > 0 { exit(1) }
    }

    private func replay(_ file: String) throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ReplayFileError(message: "\(file): cannot read the file (does it exist?)")
        }
        let timeline: StatsTimeline
        do {
            timeline = try StatsTimeline.read([UInt8](data))
        } catch {
            throw ReplayFileError(message: "\(file): \(error)")
        }
        for problem in timeline.problems {
            FileHandle.standardError.write(Data("callscope: \(file): \(problem) — skipped\n".utf8))
        }
        var driver = ReplayDriver(timeline: timeline, senderStats: senderStats)
        var printer = TextReplayPrinter(file: file, timeline: timeline)
        if format == .text { printer.printHeader() }
        for item in timeline.items {
            let callbacks = driver.ingest(item)
            switch format {
            case .ndjson:
                var output = ""
                for callback in callbacks {
                    output += callback.ndjsonLine
                    output += "\n"
                }
                if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
            case .text:
                printer.print(callbacks)
            }
        }
        if format == .text { printer.printSummary() }
    }

}

/// A file that could not be replayed at all.
struct ReplayFileError: Error {
    let message: String
}

/// Where the shipped recordings live, found from this source file so `swift run` works from
/// any directory of the checkout.
enum ShippedRecordings {
    static var directory: String {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidate = root.appendingPathComponent("Recordings").path
        if FileManager.default.fileExists(atPath: candidate) { return candidate }
        return FileManager.default.currentDirectoryPath + "/Recordings"
    }

    static var defaultRecording: String { directory + "/baseline-simulcast.ndjson.gz" }
}
