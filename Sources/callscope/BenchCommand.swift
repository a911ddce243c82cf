import Dispatch
import Foundation
import Observability
import RTCStats

/// `callscope bench`: µs per report for our parser and for the engine, beside the
/// `JSONSerialization` floor measured in the same run on the same bytes.
///
/// The reports are real: consecutive samples of the shipped recording (Chromium through Janus).
/// The larger sizes add copies of the real entries under new ids (as an SFU connection with
/// more streams would have), so counters still move from one report to the next.
struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Time the parser and the engine against the JSON-parse floor."
    static let help = """
    callscope bench [--json] [--seconds S]

    Microseconds per report for parsing and for the engine, on realistic reports of about 20,
    100 and 300 entries and on a recording replay, beside the JSONSerialization floor measured
    in the same run; then what `call --metrics-port/--push/--otlp` costs per 1 s stats interval
    on that recording's callbacks (ingesting them; a scrape; an OTLP body); then the Swift end
    of Chromium's frame channel per 960x540 frame, beside a copy of the planes.

      --json        the rows as JSON
      --seconds S   minimum time per measurement (default 0.4)
    """

    var json = false
    var minimumSeconds = 0.4

    init(arguments: [String]) throws {
        var parser = ArgumentParser(arguments, command: Self.name)
        while let argument = parser.next() {
            switch argument {
            case "--json": json = true
            case "--seconds": minimumSeconds = try parser.positiveNumber(of: argument)
            default: throw parser.unknownOption(argument)
            }
        }
    }

    struct Row {
        var name: String
        var entries: Double
        var bytes: Double
        var parse: Double
        var engine: Double
        var floor: Double
    }

    func run() throws -> ExitCode {
        let recordingPath = ShippedRecordings.defaultRecording
        guard let data = FileManager.default.contents(atPath: recordingPath) else {
            throw ReplayFileError(message: "\(recordingPath): the bench needs the shipped recording")
        }
        let recording = [UInt8](data)
        let timeline = try StatsTimeline.read(recording)
        let publisher = timeline.samples.filter { $0.peer == "publisher" }
        let subscriber = timeline.samples.filter { $0.peer == "subscriber" }
        guard publisher.count >= 10, subscriber.count >= 10 else {
            throw ReplayFileError(message: "\(recordingPath): too few samples for the bench")
        }

        var rows: [Row] = []
        for target in [20, 100, 300] {
            let reports = Self.reports(publisher: publisher, subscriber: subscriber, targetEntries: target)
            rows.append(measure(name: "\(target)", reports: reports))
        }
        rows.append(measureReplay(recording: recording, timeline: timeline))
        let live = try measureLiveMetrics(recording: recording)
        let frameChannel = try measureFrameChannel()

        if json {
            var object: [StatsField] = []
            for row in rows {
                object.append(StatsField(row.name, .object([
                    StatsField("entries_per_report", .number((row.entries * 10).rounded() / 10)),
                    StatsField("bytes_per_report", .number(row.bytes.rounded())),
                    StatsField("parse_us_per_report", .number(Self.round(row.parse))),
                    StatsField("engine_us_per_report", .number(Self.round(row.engine))),
                    StatsField("json_floor_us_per_report", .number(Self.round(row.floor))),
                    StatsField("parse_plus_engine_over_floor", .number(Self.round((row.parse + row.engine) / row.floor, digits: 3))),
                    StatsField("engine_over_parse", .number(Self.round(row.engine / row.parse, digits: 3))),
                ])))
            }
            object.append(StatsField("live_metrics", Self.jsonValue(live)))
            object.append(StatsField("frame_channel", Self.jsonValue(frameChannel)))
            object.append(StatsField("machine", .string(Self.machine())))
            print(JSONWriter.string(.object(object)))
        } else {
            print("callscope bench — µs per report (\(Self.machine()))")
            print("size      entries    bytes    parse   engine  JSONSerialization  (parse+engine)/floor  engine/parse")
            for row in rows {
                print(String(format: "%-8@ %8.1f %8.0f %8.1f %8.1f %18.1f %21.3f %13.3f", row.name, row.entries, row.bytes, row.parse, row.engine, row.floor, (row.parse + row.engine) / row.floor, row.engine / row.parse))
            }
            print(Self.text(live))
            print(Self.text(frameChannel))
        }
        return .success
    }

    // MARK: Workloads

    /// Consecutive real reports grown to about `targetEntries` entries each.
    static func reports(publisher: [StatsSample], subscriber: [StatsSample], targetEntries: Int) -> [[UInt8]] {
        let count = min(publisher.count, subscriber.count)
        return (0..<count).map { index in
            let base = publisher[index].report.entries
            let extra = subscriber[index].report.entries + base
            var entries: [StatsEntry] = Array(base.prefix(targetEntries))
            var copy = 0
            while entries.count < targetEntries {
                for entry in extra where entries.count < targetEntries {
                    var clone = entry
                    clone.id = "\(entry.id)_\(copy)"
                    entries.append(clone)
                }
                copy += 1
            }
            return Array(StatsReport(entries: entries).jsonArray().utf8)
        }
    }

    func measure(name: String, reports: [[UInt8]]) -> Row {
        let datas = reports.map { Data($0) }
        let floor = timePerItem(count: reports.count) {
            for data in datas { _ = try? JSONSerialization.jsonObject(with: data) }
        }
        let parse = timePerItem(count: reports.count) {
            for bytes in reports { _ = try? StatsReport(json: bytes) }
        }
        let parsed = reports.compactMap { try? StatsReport(json: $0) }
        let samples = parsed.map { StatsSample(time: $0.timestamp ?? 0, peer: "publisher", peerConnection: "pc", report: $0) }
        let engine = timePerItem(count: samples.count) {
            var engine = CallStatsEngine()
            for sample in samples { _ = engine.ingest(sample) }
        }
        let entries = Double(parsed.map(\.count).reduce(0, +)) / Double(max(parsed.count, 1))
        let bytes = Double(reports.map(\.count).reduce(0, +)) / Double(max(reports.count, 1))
        return Row(name: name, entries: entries, bytes: bytes, parse: parse, engine: engine, floor: floor)
    }

    /// The whole shipped recording: gunzip + read every line, then the engine over every sample.
    func measureReplay(recording: [UInt8], timeline: StatsTimeline) -> Row {
        let samples = timeline.samples
        let plain = (try? Gzip.decompress(recording)) ?? recording
        let lines = plain.split(separator: 0x0A).map { Data($0) }
        let floor = timePerItem(count: samples.count) {
            for line in lines { _ = try? JSONSerialization.jsonObject(with: line) }
        }
        let parse = timePerItem(count: samples.count) { _ = try? StatsTimeline.read(recording) }
        let engine = timePerItem(count: samples.count) {
            var engine = CallStatsEngine()
            for sample in samples { _ = engine.ingest(sample) }
        }
        let entries = Double(samples.map(\.report.count).reduce(0, +)) / Double(max(samples.count, 1))
        return Row(name: "replay", entries: entries, bytes: Double(plain.count) / Double(max(samples.count, 1)), parse: parse, engine: engine, floor: floor)
    }

    /// Runs `body` (which handles `count` items) repeatedly for at least `minimumSeconds`; the
    /// best of five rounds, in µs per item.
    func timePerItem(count: Int, _ body: () -> Void) -> Double {
        body()  // Warm up.
        var best = Double.infinity
        for _ in 0..<5 {
            var runs = 0
            let start = DispatchTime.now().uptimeNanoseconds
            var elapsed: UInt64 = 0
            repeat {
                body()
                runs += 1
                elapsed = DispatchTime.now().uptimeNanoseconds - start
            } while Double(elapsed) < minimumSeconds * 1e9 / 5
            best = min(best, Double(elapsed) / 1000 / Double(runs * count))
        }
        return best
    }

    static func round(_ value: Double, digits: Int = 1) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    static func machine() -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var model = "unknown CPU"
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return "\(model), \(cores) cores"
    }
}
