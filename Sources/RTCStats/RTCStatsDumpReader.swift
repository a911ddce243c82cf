/// Reads `rtcstats` dumps: version 1 (jitsi's rtcstats client/server), NDJSON lines of
/// `[event, pcId, data, timestamp]`; and version 3 (the rtcstats monorepo's format), a first
/// line `RTCStatsDump`, a metadata object with `fileFormat`, then lines whose last element is the
/// time in ms since the previous line (the first one since the epoch).
///
/// `getstats` lines are delta-compressed against the previous report of the same peer
/// connection: unchanged fields are dropped and an entry whose `timestamp` is `0` was taken at
/// the report's time (the data's own `timestamp` member, else the line's timestamp). This reader
/// merges each delta into a running state per connection and emits the full report; a line of
/// the usual shape is read straight into that state (`JSONParser+DeltaLine.swift`), any other
/// by the general parser. Every other line becomes a ``TimelineEvent``.
public enum RTCStatsDumpReader {
    /// The first line of a version 3 dump.
    static let version3Magic = Array("RTCStatsDump".utf8)

    /// Reads a whole (already decompressed) dump.
    public static func read(_ data: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        var state: [String: RunningReport] = [:]
        var items: [TimelineItem] = []
        var problems: [StatsParseError] = []
        var metadata: [StatsField] = []
        var lines = data.ndjsonLines()
        // Version 3: the magic line, a metadata object, and times as deltas.
        var deltaTimes = false
        var lastTime = 0.0
        if let first = lines.first, Array(first.bytes).starts(with: version3Magic) {
            lines.removeFirst()
            guard let header = lines.first else { throw StatsParseError(.truncated, "an RTCStatsDump needs a metadata line", line: 2) }
            lines.removeFirst()
            guard case .object(let fields)? = try? JSONParser.parse(header.bytes), let version = fields.first(where: { $0.name == "fileFormat" })?.value.number else {
                throw StatsParseError(.unexpectedShape, "line 2 of an RTCStatsDump must be a metadata object with \"fileFormat\"", line: header.number)
            }
            guard version == 3 else {
                throw StatsParseError(.unknownFormat, "RTCStatsDump fileFormat \(JSONWriter.string(.number(version))) is not supported (3 is)", line: header.number)
            }
            metadata = fields
            deltaTimes = true
        }
        var keys = KeyInterner(expectedKeys: 512)
        var delta = StatsDelta()
        // Noted as items are appended, so the sort at the end needs no pass of its own.
        var order = TimeOrder()
        // Merges `delta` (of the line at `time`) into its connection's state, and emits the report.
        func sample(peerConnection: String, time: Double) throws(StatsParseError) {
            // Entries stamped 0 were taken at the report's own time, kept in a "timestamp" member.
            let reportTime = delta.reportTimestamp ?? time
            // Merged in place: a copy out of `state` would share every entry's storage with
            // the dictionary and copy it all on the first write.
            try state[peerConnection, default: RunningReport()].merge(delta, lineTime: reportTime)
            let report = state[peerConnection, default: RunningReport()].report()
            items.append(.sample(StatsSample(time: time, peer: "local", peerConnection: peerConnection, report: report)))
            order.note(isSample: true, peer: "local", peerConnection: peerConnection, time: time)
        }
        for line in lines {
            do throws(StatsParseError) {
                delta.removeAll()
                // Most lines are getstats deltas: read straight into `delta`, no value tree.
                if let fast = JSONParser.parseDeltaLine(line.bytes, keys: &keys, into: &delta, hints: { state[$0]?.hints ?? DeltaKeyHints() }) {
                    var time = fast.time
                    if deltaTimes {
                        lastTime += time
                        time = lastTime
                    }
                    try sample(peerConnection: fast.peerConnection, time: time)
                    continue
                }
                delta.removeAll()
                let value = try JSONParser.parse(line.bytes, keys: &keys)
                guard let elements = value.array, elements.count >= 3 else {
                    if let object = value.object, metadata.isEmpty {
                        metadata = object
                        continue
                    }
                    throw StatsParseError(.unexpectedShape, "an rtcstats line must be [event, pcId, data, …, timestamp]")
                }
                var time = elements.count > 3 ? elements.last?.number : nil
                if deltaTimes, let delta = time {
                    lastTime += delta
                    time = lastTime
                }
                guard let name = elements[0].string else {
                    throw StatsParseError(.unsupportedCompression, "method names compressed to numbers are not supported; this line is skipped")
                }
                let peerConnection = elements[1].string
                if name == "connectionInfo", case .object(let fields) = elements[2] {
                    metadata = fields
                }
                guard name == "getstats" || name == "getStats" else {
                    items.append(.event(TimelineEvent(time: time ?? 0, peer: "local", peerConnection: peerConnection, name: name, data: elements[2])))
                    order.note(isSample: false, peer: "local", peerConnection: peerConnection ?? "", time: time ?? 0)
                    continue
                }
                guard let peerConnection, let time else {
                    throw StatsParseError(.unexpectedShape, "a getstats line needs a pc id and a numeric timestamp")
                }
                guard case .object(let members) = elements[2] else {
                    throw StatsParseError(.unexpectedShape, "getstats data must be an object keyed by stats id")
                }
                delta.append(members)
                try sample(peerConnection: peerConnection, time: time)
            } catch {
                problems.append(error.at(line: line.number))
            }
        }
        var quality = StatsDataQuality()
        quality.reordered = items.sortByTime(order)
        return StatsTimeline(format: .rtcstats, metadata: metadata, items: items, problems: problems, quality: quality)
    }
}
