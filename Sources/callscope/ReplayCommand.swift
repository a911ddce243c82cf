import Foundation
import Observability
import RTCStats

/// `callscope replay`: reads each file, runs it through one engine per file, prints the callbacks.
struct ReplayCommand {
    enum Format: String { case text, ndjson }
    enum SenderStatsMode: String { case auto, off }

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
        var engine = ReplayCommand.engine(for: timeline, senderStats: senderStats)
        var printer = TextReplayPrinter(file: file, timeline: timeline)
        if format == .text { printer.printHeader() }
        for item in timeline.items {
            if senderStats == .off, case .event(let event) = item, event.name == "sender-stats" { continue }
            let callbacks = engine.ingest(item)
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
        FileHandle.standardError.write(Data("callscope: \(file): \(timeline.quality.summaryLine)\n".utf8))
    }

    /// The engine a replay of `timeline` runs: the session mode of each peer and the publisher's
    /// allocation from the recording, and — with `auto` — sender stats derived from the
    /// publisher's reports when the recording holds a publisher and a subscriber but no
    /// `sender-stats` lines.
    static func engine(for timeline: StatsTimeline, senderStats: SenderStatsMode) -> CallStatsEngine {
        let hasSenderStatsLines = timeline.items.contains { if case .event(let event) = $0 { event.name == "sender-stats" } else { false } }
        let peers = Set(timeline.samples.map(\.peer))
        var configuration = StatsEngineConfiguration()
        configuration.maxAllocatedBitrate = maxAllocatedBitrate(of: timeline)
        return CallStatsEngine(configuration: configuration, sessionModes: sessionModes(of: timeline),
                               deriveSenderStats: senderStats == .auto && !hasSenderStatsLines && peers.count > 1)
    }

    /// The publisher's `connectionMaxAllocatedBitrate` as its SDK would know it from its
    /// settings: a recording header's `video.simulcast.maxBitrate` plus `audio.maxBitrate`
    /// (64 kbps when the header has audio but no figure). `nil` when the header does not say.
    static func maxAllocatedBitrate(of timeline: StatsTimeline) -> Double? {
        let header = StatsValue.object(timeline.metadata)
        guard let layers = header["video"]?["simulcast"]?["maxBitrate"]?.array?.compactMap(\.number), !layers.isEmpty else { return nil }
        let audio = header["audio"].map { $0["maxBitrate"]?.number ?? 64_000 } ?? 0
        return layers.reduce(0, +) + audio
    }

    /// A peer whose publishing connections overlap in time publishes peer to peer (relayed):
    /// one connection per subscriber. Otherwise its connections replace one another (routed).
    static func sessionModes(of timeline: StatsTimeline) -> [String: CallStatsEngine.SessionMode] {
        var spans: [String: [String: ClosedRange<Double>]] = [:]
        for sample in timeline.samples where sample.report.entries.contains(where: { $0.type == .outboundRTP }) {
            let existing = spans[sample.peer]?[sample.peerConnection]
            let span = existing.map { min($0.lowerBound, sample.time)...max($0.upperBound, sample.time) } ?? sample.time...sample.time
            spans[sample.peer, default: [:]][sample.peerConnection] = span
        }
        var modes: [String: CallStatsEngine.SessionMode] = [:]
        for (peer, connections) in spans {
            let ranges = Array(connections.values)
            var overlapping = false
            for index in ranges.indices {
                for other in ranges.indices where other > index && ranges[index].overlaps(ranges[other]) {
                    overlapping = true
                }
            }
            modes[peer] = overlapping ? .relayed : .routed
        }
        return modes
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
