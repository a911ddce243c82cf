import CallScopeExport
import CallScopeReplay
import Foundation
import Observability
import RTCStats

/// `callscope replay`: reads each file, runs it through one replay per file, prints the callbacks.
struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay recorded calls and print what the SDK reports."
    static let help = """
    callscope replay [FILE...] [--format text|ndjson] [--sender-stats auto|off] [--push URL] [--otlp URL]

    Replays recorded calls through the CallScope engine. FILE may be a CallScope recording
    (.ndjson or .ndjson.gz), a Chrome webrtc-internals dump, an rtcstats dump (Chrome, Firefox,
    Safari) or a single getStats() JSON report; the format is detected from the content. With
    no FILE, replays the real call shipped in Recordings/.

      --format text     per-second stats a person can read, then a summary per stream (default)
      --format ndjson   one JSON line per callback:
                        {"t":ms,"peer":..,"pc":..,"stream":..,"publisher":..,"callback":..,"data":{..}}
                        (the layer policy's recorded decisions — subscriber.layerChanged,
                        subscriber.videoDisabled, subscriber.videoEnabled,
                        subscriber.videoDisableWarning — are lines of the same shape, their data
                        as recorded plus "limitApplied", the receive limit in force after them;
                    a stream with subscriber.receiveLimit lines takes its limits from those)
      --sender-stats auto  received sender-stats messages; when a recording holds a publisher and
                           a subscriber but none, derive the messages the publisher's SDK would
                           have sent (one interval late, same encoder and decoder) (default)
      --sender-stats off   replay without sender stats
      --push URL        after each file, PUT its final metrics (Prometheus text) to the
                        Pushgateway at URL, grouped by job="callscope" and call=<file name>
      --otlp URL        after each file, POST its final metrics as OTLP/HTTP JSON to the
                        collector at URL (/v1/metrics appended unless given)

    Exit status: 0 when every file replayed, 1 when one could not be read, 2 for a usage mistake.
    """

    enum Format: String, CaseIterable { case text, ndjson }
    typealias SenderStatsMode = ReplayDriver.SenderStatsMode

    var files: [String] = []
    var format = Format.text
    var senderStats = SenderStatsMode.auto
    var exports = ReplayExportOptions()

    init(arguments: [String]) throws {
        var parser = ArgumentParser(arguments, command: Self.name)
        while let argument = parser.next() {
            switch argument {
            case "--format": format = try parser.choice(of: argument)
            case "--sender-stats": senderStats = try parser.choice(of: argument)
            case let option where try exports.parse(option, &parser):
                continue
            case let option where ArgumentParser.isOption(option): throw parser.unknownOption(option)
            default: files.append(argument)
            }
        }
        if files.isEmpty { files = [ShippedRecordings.defaultRecording] }
    }

    func run() throws -> ExitCode {
        var failures = 0
        for file in files {
            do {
                try replay(file)
            } catch let error as ReplayFileError {
                standardError("callscope replay: \(error.message)\n")
                failures += 1
            }
        }
        return failures > 0 ? .failure : .success
    }

    private func replay(_ file: String) throws {
        let timeline = try readTimeline(file: file).timeline
        for problem in timeline.problems {
            standardError("callscope replay: \(file): \(problem) — skipped\n")
        }
        var driver = ReplayDriver(timeline: timeline, senderStats: senderStats)
        var callbackCount = 0
        var printer = TextReplayPrinter(file: file, timeline: timeline)
        var metrics = CallMetricsCollector()
        if format == .text { printer.printHeader() }
        for item in timeline.items {
            let step = driver.replay(item)
            let callbacks = step.callbacks
            callbackCount += callbacks.count
            if !exports.isEmpty { for callback in callbacks { metrics.ingest(callback) } }
            switch format {
            case .ndjson:
                var output = step.policyEvent.map { $0.ndjsonLine + "\n" } ?? ""
                for callback in callbacks {
                    output += callback.ndjsonLine
                    output += "\n"
                }
                if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
            case .text:
                if let event = step.policyEvent { printer.print(event) }
                printer.print(callbacks)
            }
        }
        if format == .text { printer.printSummary() }
        standardError("callscope replay: \(file): \(timeline.quality.summaryLine)\(Self.engineDrops(driver.droppedValues))\n")
        if callbackCount == 0 { throw ReplayFileError(message: "\(file): nothing usable: \(Self.contents(of: timeline))") }
        if !exports.isEmpty {
            do {
                try exports.send(metrics.snapshot(), file: file)
            } catch {
                throw ReplayFileError(message: "\(file): export failed: \(error)")
            }
        }
    }

}

extension ReplayCommand {
    /// The out-of-range values the engine dropped, for the data-quality line ("" when none).
    static func engineDrops(_ dropped: DroppedValues) -> String {
        guard dropped.total > 0 else { return "" }
        let kinds = DroppedValueKind.allCases.compactMap { kind in dropped.counts[kind].map { "\(kind.rawValue) \($0)" } }
        return "; \(dropped.total) out-of-range values dropped by the engine (\(kinds.joined(separator: ", ")))"
    }

    /// What a timeline held, for a file nothing could be computed from: its samples and entry
    /// types, and why they give no stats.
    static func contents(of timeline: StatsTimeline) -> String {
        let samples = timeline.samples
        guard !samples.isEmpty else { return "no stats sample in the \(timeline.format.rawValue) file" }
        var types: [String: Int] = [:]
        for sample in samples {
            for entry in sample.report.entries { types[entry.type.rawValue, default: 0] += 1 }
        }
        let listed = types.sorted { $0.value > $1.value }.prefix(8).map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        return "\(samples.count) samples (\(listed)) but no inbound-rtp or outbound-rtp entry the engine can turn into stats"
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
