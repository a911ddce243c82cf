import CallScopeCore
import CallScopeExport
import Dispatch
import Foundation
import Observability

/// `callscope analyze DIR|FILE... [--json|--csv]`: replays many captures at once, on all cores,
/// and prints one summary row per call and video stream, then a total. A file that cannot be
/// read is reported on stderr and skipped; the rest is analysed.
struct AnalyzeCommand: Command {
    static let name = "analyze"
    static let summary = "Summarise many captures at once, one row per call and stream."
    static let help = """
    callscope analyze DIR|FILE... [--json|--csv] [--jobs N]

    Replays many captures at once on all cores (a progress bar when stderr is a terminal): one
    row per call and video stream (duration, mean and 5th-percentile bitrate, loss, freezes,
    seconds per network condition, dominant degradation source) and a total. A file that
    cannot be read is reported and skipped. Directories are searched for .ndjson, .json,
    .rtcstats, .jsonl and .txt files (optionally .gz).
    """

    enum Output { case table, json, csv }

    var paths: [String] = []
    var output = Output.table
    var workers = ProcessInfo.processInfo.activeProcessorCount

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json": output = .json
            case "--csv": output = .csv
            case "--jobs":
                guard let value = remaining.popFirst(), let count = Int(value), count > 0 else { throw UsageError("--jobs takes a positive number") }
                workers = count
            case let option where option.hasPrefix("-"):
                throw UsageError("unknown option '\(option)' for analyze")
            default:
                paths.append(argument)
            }
        }
        if paths.isEmpty { throw UsageError("analyze needs at least one DIR or FILE") }
    }

    /// What analysing one file gave.
    struct FileResult {
        var file: String
        var bytes: Int
        var rows: [StreamSummary] = []
        var problems = 0
        var failure: String?
    }

    func run() throws -> ExitCode {
        let files = try Self.collectFiles(paths)
        if files.isEmpty { throw UsageError("no capture found in \(paths.joined(separator: ", "))") }
        let started = DispatchTime.now().uptimeNanoseconds
        let cpuStarted = Self.processCPUSeconds()
        let results = Self.analyse(files, workers: workers, progress: ProgressBar(total: files.count, enabled: isatty(2) == 1))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpuSeconds = Self.processCPUSeconds() - cpuStarted

        for result in results {
            if let failure = result.failure {
                FileHandle.standardError.write(Data("callscope: \(failure) — skipped\n".utf8))
            } else if result.problems > 0 {
                FileHandle.standardError.write(Data("callscope: \(result.file): \(result.problems) damaged part(s) skipped, the rest analysed\n".utf8))
            }
        }
        let rows = results.flatMap(\.rows)
        let total = StreamSummary.total(of: rows)
        let skipped = results.filter { $0.failure != nil }
        let text: String
        switch output {
        case .table: text = AnalyzeOutput.table(rows: rows, total: total)
        case .csv: text = AnalyzeOutput.csv(rows: rows, total: total)
        case .json: text = AnalyzeOutput.json(rows: rows, total: total, skipped: skipped.map { ($0.file, $0.failure ?? "") }, files: results.count)
        }
        FileHandle.standardOutput.write(Data(text.utf8))

        // Per core = per CPU-second of this process: on a machine shared with other work the
        // wall clock says how busy the machine was, the CPU time what the analysis cost.
        let megabytes = Double(results.reduce(0) { $0 + $1.bytes }) / 1e6
        let cores = min(workers, files.count)
        let perCore = cpuSeconds > 0 ? megabytes / cpuSeconds : 0
        FileHandle.standardError.write(Data(String(format: "callscope: analysed %d of %d files (%.2f MB on disk) in %.2f s on %d threads, %.2f CPU-s: %.2f MB/s per core\n",
                                                   results.count - skipped.count, results.count, megabytes, seconds, cores, cpuSeconds, perCore).utf8))
        // Damaged files are reported and skipped; only a run with nothing analysed fails.
        return skipped.count == results.count ? .failure : .success
    }

    /// User + system CPU time of this process so far, s.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Regular files under the paths; in directories, only names that look like captures
    /// (`.ndjson`, `.json`, `.rtcstats`, `.jsonl`, `.txt`, each optionally `.gz`), without the
    /// rig's `.labels.json` / `.expected.json` sidecars.
    static func collectFiles(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw UsageError("\(path): no such file or directory")
            }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            guard let walker = manager.enumerator(atPath: path) else { continue }
            var found: [String] = []
            for case let relative as String in walker where looksLikeCapture(relative) {
                let full = (path as NSString).appendingPathComponent(relative)
                var childIsDirectory: ObjCBool = false
                if manager.fileExists(atPath: full, isDirectory: &childIsDirectory), !childIsDirectory.boolValue { found.append(full) }
            }
            files += found.sorted()
        }
        return files
    }

    static func looksLikeCapture(_ name: String) -> Bool {
        var base = name.lowercased()
        if base.hasSuffix(".labels.json") || base.hasSuffix(".expected.json") { return false }
        if base.hasSuffix(".gz") { base.removeLast(3) }
        return [".ndjson", ".json", ".rtcstats", ".jsonl", ".txt"].contains { base.hasSuffix($0) }
    }

    /// Analyses every file on `workers` threads, largest first (so one big file does not finish
    /// last alone); results come back in the order of `files`.
    static func analyse(_ files: [String], workers: Int, progress: ProgressBar) -> [FileResult] {
        let sizes = files.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        let order = files.indices.sorted { sizes[$0] > sizes[$1] }
        let results = ResultSlots(count: files.count)
        let next = ResultSlots.Counter()
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, files.count))) { _ in
            while let position = next.take(limit: order.count) {
                let index = order[position]
                results.store(analyseOne(files[index]), at: index)
                progress.advance()
            }
        }
        progress.finish()
        return results.values()
    }

    static func analyseOne(_ file: String) -> FileResult {
        do {
            let call = try replayCallbacks(file: file)
            var builder = CallSummaryBuilder(call: file)
            for callback in call.callbacks { builder.ingest(callback) }
            return FileResult(file: file, bytes: call.byteCount, rows: builder.summaries(), problems: call.timeline.problems.count)
        } catch let error as ReplayFileError {
            return FileResult(file: file, bytes: 0, failure: error.message)
        } catch {
            return FileResult(file: file, bytes: 0, failure: "\(file): \(error)")
        }
    }
}

/// Results written by many threads, one slot each.
final class ResultSlots: Sendable {
    private let slots: Locked<[AnalyzeCommand.FileResult?]>

    init(count: Int) { slots = Locked(Array(repeating: nil, count: count)) }

    func store(_ result: AnalyzeCommand.FileResult, at index: Int) {
        slots.withLock { $0[index] = result }
    }

    func values() -> [AnalyzeCommand.FileResult] {
        slots.withLock { $0.compactMap { $0 } }
    }

    /// Hands out 0, 1, 2, ... to whichever thread asks next.
    final class Counter: Sendable {
        private let value = Locked(0)

        func take(limit: Int) -> Int? {
            value.withLock { value in
                guard value < limit else { return nil }
                value += 1
                return value - 1
            }
        }
    }
}

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class ProgressBar: Sendable {
    private let total: Int
    private let enabled: Bool
    private let done = Locked(0)

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        if enabled { draw(0) }
    }

    func advance() {
        guard enabled else { return }
        done.withLock { done in
            done += 1
            draw(done)
        }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func draw(_ value: Int) {
        let width = 30
        let filled = total == 0 ? width : width * value / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(bar) \(value)/\(total) files".utf8))
    }
}
