import Foundation
import CallScopeReplay
import Observability
import RTCStats

/// `callscope evaluate RECORDING...`: scores the engine against what the rig did. Each
/// recording needs its sibling `NAME.labels.json` (impairments, expected degradation source and
/// reason per interval and peer, times relative to `t0`).
///
/// Per scenario and peer: the share of labelled seconds (outside `grace_ms` after each
/// impairment start or end) where the degradation source and reason match; after each
/// impairment onset, the delay until a degradation is reported at all and until the expected
/// source and reason are; and condition events per minute under steady impairment (from
/// `grace_ms` after the onset to its end).
struct EvaluateCommand: Command {
    static let name = "evaluate"
    static let summary = "Score the engine on labelled recordings of real calls."
    static let help = """
    callscope evaluate [RECORDING...] [--json]

    Scores the engine on labelled recordings (NAME.ndjson.gz + NAME.labels.json; default: every
    labelled recording in Recordings/): per scenario, peer and stream, the share of labelled
    seconds whose degradation source and reason match, the detection delay after each
    impairment onset, and condition events per minute under steady impairment.

      --json   the rows and the total as one JSON object
    """

    var files: [String] = []
    var json = false

    init(arguments: [String]) throws {
        var parser = ArgumentParser(arguments, command: Self.name)
        while let argument = parser.next() {
            switch argument {
            case "--json": json = true
            case let option where ArgumentParser.isOption(option): throw parser.unknownOption(option)
            default: files.append(argument)
            }
        }
        if files.isEmpty {
            let directory = ShippedRecordings.directory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            files = names.filter { $0.hasSuffix(".labels.json") }.sorted().map { directory + "/" + $0.replacingOccurrences(of: ".labels.json", with: ".ndjson.gz") }
        }
    }

    struct Row {
        var scenario: String
        var peer: String
        var scored = 0
        var matched = 0
        /// Per impairment onset: seconds until a degradation is reported at all.
        var detections: [Double?] = []
        /// Per impairment onset: seconds until the expected source and reason are reported.
        var delays: [Double?] = []
        var steadyEvents = 0
        var steadySeconds = 0.0

        var accuracy: Double { scored == 0 ? .nan : Double(matched) / Double(scored) }
        var eventsPerMinute: Double { steadySeconds == 0 ? .nan : Double(steadyEvents) / (steadySeconds / 60) }
    }

    func run() throws -> ExitCode {
        var rows: [Row] = []
        for file in files { rows += try evaluate(file) }
        let scored = rows.reduce(0) { $0 + $1.scored }
        let matched = rows.reduce(0) { $0 + $1.matched }
        let delays = rows.flatMap(\.delays)
        let worstDelay = delays.compactMap { $0 }.max()
        let missed = delays.filter { $0 == nil }.count
        let detections = rows.flatMap(\.detections)
        let worstDetection = detections.compactMap { $0 }.max()
        let undetected = detections.filter { $0 == nil }.count
        let worstRate = rows.map(\.eventsPerMinute).filter { !$0.isNaN }.max()
        if json {
            let objects: [JSONValue] = rows.map { row in
                .object([
                    StatsField("scenario", .string(row.scenario)), StatsField("peer", .string(row.peer)),
                    StatsField("scored_seconds", .number(Double(row.scored))), StatsField("accuracy", .number(row.accuracy)),
                    StatsField("detection_delays_s", .array(row.detections.map { $0.map(JSONValue.number) ?? .null })),
                    StatsField("attribution_delays_s", .array(row.delays.map { $0.map(JSONValue.number) ?? .null })),
                    StatsField("condition_events_per_minute_steady", .number(row.eventsPerMinute)),
                ])
            }
            let total: JSONValue = .object([
                StatsField("scored_seconds", .number(Double(scored))),
                StatsField("accuracy", .number(scored == 0 ? .nan : Double(matched) / Double(scored))),
                StatsField("worst_detection_delay_s", worstDetection.map(JSONValue.number) ?? .null),
                StatsField("undetected_onsets", .number(Double(undetected))),
                StatsField("worst_attribution_delay_s", worstDelay.map(JSONValue.number) ?? .null),
                StatsField("unattributed_onsets", .number(Double(missed))),
                StatsField("worst_condition_events_per_minute_steady", worstRate.map(JSONValue.number) ?? .null),
            ])
            print(JSONWriter.string(.object([StatsField("rows", .array(objects)), StatsField("total", total)])))
            return .success
        }
        let scenarioWidth = max(30, (rows.map(\.scenario.count).max() ?? 0) + 2)
        let peerWidth = max(12, (rows.map(\.peer.count).max() ?? 0) + 2)
        print(Self.pad("scenario", scenarioWidth) + Self.pad("peer", peerWidth) + "scored  accuracy  detected (s)  attributed (s)  events/min steady")
        func seconds(_ values: [Double?]) -> String {
            values.isEmpty ? "-" : values.map { $0.map { String(format: "%.0f", $0) } ?? "missed" }.joined(separator: ", ")
        }
        for row in rows {
            let rate = row.eventsPerMinute.isNaN ? "-" : String(format: "%.1f", row.eventsPerMinute)
            print(Self.pad(row.scenario, scenarioWidth) + Self.pad(row.peer, peerWidth) + Self.pad("\(row.scored)", 8)
                  + Self.pad(row.accuracy.isNaN ? "-" : String(format: "%.1f%%", 100 * row.accuracy), 10)
                  + Self.pad(seconds(row.detections), 14) + Self.pad(seconds(row.delays), 16) + rate)
        }
        let accuracy = scored == 0 ? "-" : String(format: "%.1f%%", 100 * Double(matched) / Double(scored))
        print("total: \(accuracy) of \(scored) labelled seconds match; degradation reported within \(worstDetection.map { String(format: "%.0f s", $0) } ?? "-")\(undetected > 0 ? " (\(undetected) onset(s) not detected)" : ""), attributed within \(worstDelay.map { String(format: "%.0f s", $0) } ?? "-")\(missed > 0 ? " (\(missed) not attributed)" : ""); worst \(worstRate.map { String(format: "%.1f", $0) } ?? "-") condition events/min under steady impairment")
        return .success
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    // MARK: Scoring

    private struct Labels {
        struct Impairment { var start: Double; var end: Double }
        struct Expected { var series: SeriesKey; var source: String; var reason: String; var from: Double; var to: Double }
        var scenario: String
        var t0: Double
        var grace: Double
        var impairments: [Impairment]
        var expected: [Expected]
    }

    /// One scored series: a publisher endpoint's uplink, or one stream of a subscriber
    /// endpoint (`stream` is the stream's publisher as the labels name it; `nil` when the
    /// recording has one stream per subscriber).
    private struct SeriesKey: Hashable, Comparable {
        var peer: String
        var stream: String?

        var label: String { stream.map { "\(peer) [\($0)]" } ?? peer }

        /// Subscribers first (as the tables of docs/real-calls.md), then by name.
        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.peer.hasPrefix("publisher") ? 1 : 0, lhs.peer, lhs.stream ?? "") < (rhs.peer.hasPrefix("publisher") ? 1 : 0, rhs.peer, rhs.stream ?? "")
        }
    }

    private func loadLabels(_ path: String) throws -> Labels {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReplayFileError(message: "\(path): missing (evaluate needs the recording's labels)") }
        let value: JSONValue
        do { value = try JSONParser.parse([UInt8](data)) } catch { throw ReplayFileError(message: "\(path): \(error)") }
        guard let t0 = value["t0"]?.number else { throw ReplayFileError(message: "\(path): needs \"t0\"") }
        let impairments = (value["impairments"]?.array ?? []).compactMap { item -> Labels.Impairment? in
            guard let start = item["start_ms"]?.number, let end = item["end_ms"]?.number else { return nil }
            return .init(start: start, end: end)
        }
        let expected = (value["expected"]?.array ?? []).compactMap { item -> Labels.Expected? in
            guard let from = item["from_ms"]?.number, let to = item["to_ms"]?.number, let source = item["degradation_source"]?.string else { return nil }
            let series = SeriesKey(peer: item["peer"]?.string ?? "subscriber", stream: item["stream"]?.string)
            return .init(series: series, source: source, reason: item["reason"]?.string ?? "none", from: from, to: to)
        }
        return Labels(scenario: value["scenario"]?.string ?? path, t0: t0, grace: value["grace_ms"]?.number ?? 5000, impairments: impairments, expected: expected)
    }

    private func evaluate(_ file: String) throws -> [Row] {
        let labelsPath = file.replacingOccurrences(of: ".ndjson.gz", with: ".labels.json").replacingOccurrences(of: ".ndjson", with: ".labels.json")
        let labels = try loadLabels(labelsPath)
        guard let data = FileManager.default.contents(atPath: file) else { throw ReplayFileError(message: "\(file): cannot read the file") }
        let timeline: StatsTimeline
        do { timeline = try StatsTimeline.read([UInt8](data)) } catch { throw ReplayFileError(message: "\(file): \(error)") }
        var driver = ReplayDriver(timeline: timeline)
        let labelledStreams = Set(labels.expected.compactMap(\.series.stream))

        var outputs: [SeriesKey: [(time: Double, source: String, reason: String)]] = [:]
        var events: [SeriesKey: [Double]] = [:]
        for item in timeline.items {
            for callback in driver.ingest(item) {
                let time = callback.time - labels.t0
                let publisher = callback.publisher?.rawValue
                let subscriberSeries = SeriesKey(peer: callback.endpoint.rawValue, stream: publisher.flatMap { labelledStreams.contains($0) ? $0 : nil })
                let publisherSeries = SeriesKey(peer: callback.endpoint.rawValue, stream: nil)
                switch callback.event {
                case .publisherMediaLinkStatsUpdated(let links):
                    guard let transport = links.first?.transport else { continue }
                    let degraded = transport.networkCondition.isDegraded
                    outputs[publisherSeries, default: []].append((time, degraded ? "local" : "none", degraded ? transport.networkConditionReason.rawValue : "none"))
                case .subscriberMediaLinkStatsUpdated(let stats):
                    let source = stats.networkDegradationSource
                    let reason: String
                    switch source {
                    case .local, .bothOrUnclear: reason = stats.transport.networkConditionReason.rawValue
                    case .remote: reason = stats.remotePublisherTransport.networkConditionReason.rawValue
                    case .none: reason = "none"
                    case .unknown: reason = "unknown"
                    }
                    outputs[subscriberSeries, default: []].append((time, source.rawValue, reason))
                case .publisherNetworkConditionChanged: events[publisherSeries, default: []].append(time)
                case .subscriberNetworkConditionChanged: events[subscriberSeries, default: []].append(time)
                default: continue
                }
            }
        }

        var rows: [Row] = []
        for key in Set(labels.expected.map(\.series)).sorted() {
            let expectations = labels.expected.filter { $0.series == key }
            var row = Row(scenario: labels.scenario, peer: key.label)
            let series = outputs[key] ?? []
            for output in series {
                guard let expected = expectations.first(where: { $0.from <= output.time && output.time < $0.to }) else { continue }
                if labels.impairments.contains(where: { (output.time >= $0.start && output.time < $0.start + labels.grace) || (output.time >= $0.end && output.time < $0.end + labels.grace) }) { continue }
                row.scored += 1
                if output.source == expected.source && (expected.source == "none" || output.reason == expected.reason) { row.matched += 1 }
            }
            for impairment in labels.impairments {
                guard let expected = expectations.first(where: { $0.from <= impairment.start + 1 && impairment.start + 1 < $0.to }), expected.source != "none" else { continue }
                let inWindow = series.filter { $0.time >= impairment.start && $0.time < impairment.end }
                let detected = inWindow.first { $0.source != "none" }
                row.detections.append(detected.map { ($0.time - impairment.start) / 1000 })
                let hit = inWindow.first { $0.source == expected.source && $0.reason == expected.reason }
                row.delays.append(hit.map { ($0.time - impairment.start) / 1000 })
                let steadyStart = impairment.start + labels.grace
                if impairment.end > steadyStart {
                    row.steadyEvents += (events[key] ?? []).filter { $0 >= steadyStart && $0 < impairment.end }.count
                    row.steadySeconds += (impairment.end - steadyStart) / 1000
                }
            }
            rows.append(row)
        }
        return rows
    }
}
