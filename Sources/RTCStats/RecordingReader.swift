/// Reads our `webrtc-stats-recording` NDJSON (version 1): a header line, then sample and event
/// lines. A damaged line is reported in ``StatsTimeline/problems`` with its line number and
/// skipped; the rest is read.
public enum RecordingReader {
    /// The `format` value of the header line.
    public static let formatName = "webrtc-stats-recording"

    /// Reads a whole (already decompressed) recording.
    public static func read(_ data: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        let lines = data.ndjsonLines()
        let document = JSONDocument(data)
        guard let headerLine = lines.first else {
            throw StatsParseError(.truncated, "the recording is empty")
        }
        var problems: [StatsParseError] = []
        var header = JSONValue.object([])
        do throws(StatsParseError) {
            header = try JSONParser.parse(headerLine.bytes)
            guard header["format"]?.string == formatName else {
                throw StatsParseError(.unknownFormat, "line 1 is not a \(formatName) header (expected \"format\":\"\(formatName)\")", line: headerLine.number)
            }
        } catch {
            // The lines after it were recognised as recording lines: read them without the
            // header's settings, and say so.
            problems.append(StatsParseError(error.code, "the header is damaged (\(error.message)); the lines after it are read without it", line: headerLine.number))
            header = .object([])
        }
        if let version = header["version"]?.number, version > 1 {
            throw StatsParseError(.unknownFormat, "recording version \(JSONWriter.string(.number(version))) is newer than this reader (1)", line: headerLine.number)
        }
        var items: [TimelineItem] = []
        items.reserveCapacity(lines.count)
        for line in lines.dropFirst() {
            do throws(StatsParseError) {
                if let fast = try JSONParser.parseRecordingLine(document, range: line.bytes.startIndex..<line.bytes.endIndex), let peerConnection = fast.peerConnection {
                    items.append(.sample(StatsSample(time: fast.time, peer: fast.peer ?? "local", peerConnection: peerConnection, report: StatsReport(entries: fast.entries))))
                } else {
                    items.append(try item(JSONParser.parse(line.bytes)))
                }
            } catch {
                problems.append(error.at(line: line.number))
            }
        }
        if items.isEmpty, let headerProblem = problems.first, header.object?.isEmpty ?? true {
            throw headerProblem
        }
        // Lines out of time order (concatenated or merged files) are kept, put in order and counted.
        var quality = StatsDataQuality()
        quality.reordered = items.sortByTime()
        return StatsTimeline(format: .recording, metadata: header.object ?? [], items: items, problems: problems, quality: quality)
    }

    static func item(_ line: JSONValue) throws(StatsParseError) -> TimelineItem {
        guard let time = line["t"]?.number else {
            throw StatsParseError(.unexpectedShape, "a recording line needs a numeric \"t\" (unix ms)")
        }
        let peer = line["peer"]?.string ?? "local"
        if let name = line["event"]?.string {
            return .event(TimelineEvent(time: time, peer: peer, peerConnection: line["pc"]?.string, name: name, data: line["data"] ?? .null))
        }
        guard let report = line["report"] else {
            throw StatsParseError(.unexpectedShape, "a recording line needs \"report\" (a sample) or \"event\"")
        }
        guard let peerConnection = line["pc"]?.string else {
            throw StatsParseError(.unexpectedShape, "a sample line needs a \"pc\" label")
        }
        return .sample(StatsSample(time: time, peer: peer, peerConnection: peerConnection, report: try StatsReport(jsonValue: report, defaultTimestamp: time)))
    }
}
