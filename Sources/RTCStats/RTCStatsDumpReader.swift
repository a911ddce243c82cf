/// Reads `rtcstats` dumps (the format of jitsi's rtcstats client/server): NDJSON lines of
/// `[event, pcId, data, timestamp]`.
///
/// `getstats` lines are delta-compressed against the previous report of the same peer
/// connection: unchanged fields are dropped and an entry whose `timestamp` is `0` was taken at
/// the report's time (the data's own `timestamp` member, else the line's timestamp). This reader merges each delta into a running state per connection and
/// emits the full report. Every other line becomes a ``TimelineEvent``.
public enum RTCStatsDumpReader {
    /// Reads a whole (already decompressed) dump.
    public static func read(_ data: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        var state: [String: RunningReport] = [:]
        var items: [TimelineItem] = []
        var problems: [StatsParseError] = []
        var metadata: [StatsField] = []
        for line in data.ndjsonLines() {
            do throws(StatsParseError) {
                let value = try JSONParser.parse(line.bytes)
                guard let elements = value.array, elements.count >= 3, let name = elements[0].string else {
                    if let object = value.object, metadata.isEmpty {
                        metadata = object
                        continue
                    }
                    throw StatsParseError(.unexpectedShape, "an rtcstats line must be [event, pcId, data, timestamp]")
                }
                let peerConnection = elements[1].string
                let time = elements.count > 3 ? elements[3].number : nil
                if name == "connectionInfo", case .object(let fields) = elements[2] {
                    metadata = fields
                }
                guard name == "getstats" || name == "getStats" else {
                    items.append(.event(TimelineEvent(time: time ?? 0, peer: "local", peerConnection: peerConnection, name: name, data: elements[2])))
                    continue
                }
                guard let peerConnection, let time else {
                    throw StatsParseError(.unexpectedShape, "a getstats line needs a pc id and a numeric timestamp")
                }
                guard case .object(let delta) = elements[2] else {
                    throw StatsParseError(.unexpectedShape, "getstats data must be an object keyed by stats id")
                }
                // Entries stamped 0 were taken at the report's own time, kept in a "timestamp" member.
                let reportTime = delta.first { $0.name == "timestamp" }?.value.number ?? time
                var running = state[peerConnection] ?? RunningReport()
                try running.merge(delta, lineTime: reportTime)
                state[peerConnection] = running
                items.append(.sample(StatsSample(time: time, peer: "local", peerConnection: peerConnection, report: running.report())))
            } catch {
                problems.append(error.at(line: line.number))
            }
        }
        items.sort { $0.time < $1.time }
        return StatsTimeline(format: .rtcstats, metadata: metadata, items: items, problems: problems)
    }
}

/// The full state of one connection's stats, rebuilt from deltas.
private struct RunningReport {
    var order: [String] = []
    var entries: [String: StatsEntry] = [:]

    mutating func merge(_ delta: [StatsField], lineTime: Double) throws(StatsParseError) {
        for member in delta {
            guard case .object(let fields) = member.value else { continue }
            if var entry = entries[member.name] {
                var changes: [StatsField] = []
                for field in fields {
                    switch field.name {
                    case "id": continue
                    case "type": if let type = field.value.string { entry.type = StatsType(rawValue: type) }
                    case "timestamp": if let stamp = field.value.number { entry.timestamp = stamp == 0 ? lineTime : stamp }
                    default: changes.append(field)
                    }
                }
                entry.merge(changes)
                entries[member.name] = entry
            } else {
                entries[member.name] = try StatsEntry(fields: fields, fallbackID: member.name, defaultTimestamp: lineTime)
                order.append(member.name)
            }
        }
    }

    func report() -> StatsReport {
        StatsReport(entries: order.compactMap { entries[$0] })
    }
}
