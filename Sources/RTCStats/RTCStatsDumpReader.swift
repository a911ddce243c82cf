/// Reads `rtcstats` dumps: version 1 (jitsi's rtcstats client/server), NDJSON lines of
/// `[event, pcId, data, timestamp]`; and version 3 (the rtcstats monorepo's format), a first
/// line `RTCStatsDump`, a metadata object with `fileFormat`, then lines whose last element is the
/// time in ms since the previous line (the first one since the epoch).
///
/// `getstats` lines are delta-compressed against the previous report of the same peer
/// connection: unchanged fields are dropped and an entry whose `timestamp` is `0` was taken at
/// the report's time (the data's own `timestamp` member, else the line's timestamp). This reader merges each delta into a running state per connection and
/// emits the full report. Every other line becomes a ``TimelineEvent``.
public enum RTCStatsDumpReader {
    /// Reads a whole (already decompressed) dump.
    /// The first line of a version 3 dump.
    static let version3Magic = Array("RTCStatsDump".utf8)

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
        var keys = KeyInterner()
        for line in lines {
            do throws(StatsParseError) {
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
                // Merged in place: a copy out of `state` would share every entry's storage with
                // the dictionary and copy it all on the first write.
                try state[peerConnection, default: RunningReport()].merge(delta, lineTime: reportTime)
                let report = state[peerConnection, default: RunningReport()].report()
                items.append(.sample(StatsSample(time: time, peer: "local", peerConnection: peerConnection, report: report)))
            } catch {
                problems.append(error.at(line: line.number))
            }
        }
        var quality = StatsDataQuality()
        quality.reordered = items.sortByTime()
        return StatsTimeline(format: .rtcstats, metadata: metadata, items: items, problems: problems, quality: quality)
    }
}

/// The full state of one connection's stats, rebuilt from deltas.
///
/// Each entry is kept in a mutable form (fields by position, names to positions, each field's
/// ``KnownField`` looked up once), and its ``StatsEntry`` is rebuilt only when a delta changed
/// it: most entries of a report do not change from one poll to the next.
private struct RunningReport {
    private struct RunningEntry {
        var id: String
        var type: StatsType
        var timestamp: Double
        var fields: [StatsField]
        /// `known` and `positions` are built on the first change: many entries (codecs,
        /// certificates, candidates) never change after their first report.
        var known: [KnownField?] = []
        var positions: [String: Int] = [:]
        var indexed = false
        var built: StatsEntry?

        /// The entry's key in the dump (usually its id); unique in a report.
        var key: String
        /// Whether no two fields share a name (then a name found at a hinted position is the
        /// one `positions` would give).
        var uniqueNames = false

        init(_ entry: StatsEntry, key: String) {
            self.key = key
            id = entry.id
            type = entry.type
            timestamp = entry.timestamp
            fields = entry.fields
            built = entry
        }

        /// Builds `known` and `positions` if not yet, and forgets the built entry.
        mutating func prepareForChange() {
            built = nil
            guard !indexed else { return }
            indexed = true
            known = fields.map { KnownField(name: $0.name) }
            positions.reserveCapacity(fields.count)
            for (position, field) in fields.enumerated() where positions[field.name] == nil { positions[field.name] = position }
            uniqueNames = positions.count == fields.count
        }

        /// The first field named `name`: `hint` first (deltas list fields in the entry's
        /// order), then the table. Only after ``prepareForChange()``.
        func position(of name: String, hint: Int) -> Int? {
            if uniqueNames, hint < fields.count, fields[hint].name == name { return hint }
            return positions[name]
        }

        mutating func entry() -> StatsEntry {
            if let built { return built }
            let entry = StatsEntry(id: id, type: type, timestamp: timestamp, fields: fields, known: known)
            built = entry
            return entry
        }
    }

    /// In first-seen order (the report's order), found by key through `positions`.
    private var entries: [RunningEntry] = []
    private var positions: [String: Int] = [:]

    /// The entry under `key`: `hint` first (a delta usually lists entries in the report's
    /// order), then the table.
    private func position(of key: String, hint: Int) -> Int? {
        if hint < entries.count, entries[hint].key == key { return hint }
        return positions[key]
    }

    /// Merges one delta; when it throws (a new entry that cannot be read) nothing is changed:
    /// new entries are read before anything is written.
    mutating func merge(_ delta: [StatsField], lineTime: Double) throws(StatsParseError) {
        var created: [String: StatsEntry] = [:]
        var hint = 0
        for member in delta {
            if let index = position(of: member.name, hint: hint) {
                hint = index + 1
                continue
            }
            guard created[member.name] == nil, case .object(let fields) = member.value else { continue }
            created[member.name] = try StatsEntry(fields: fields, fallbackID: member.name, defaultTimestamp: lineTime)
        }
        hint = 0
        for member in delta {
            guard case .object(let fields) = member.value else { continue }
            guard let index = position(of: member.name, hint: hint) else {
                positions[member.name] = entries.count
                entries.append(RunningEntry(created[member.name]!, key: member.name))
                continue
            }
            hint = index + 1
            entries[index].prepareForChange()
            var fieldHint = 0
            for field in fields {
                switch field.name {
                case "id": continue
                case "type": if let type = field.value.string { entries[index].type = StatsType(rawValue: type) }
                case "timestamp": if let stamp = field.value.number { entries[index].timestamp = stamp == 0 ? lineTime : stamp }
                default:
                    if let position = entries[index].position(of: field.name, hint: fieldHint) {
                        entries[index].fields[position].value = field.value
                        fieldHint = position + 1
                    } else {
                        entries[index].positions[field.name] = entries[index].fields.count
                        entries[index].fields.append(field)
                        entries[index].known.append(KnownField(name: field.name))
                    }
                }
            }
        }
    }

    mutating func report() -> StatsReport {
        var result: [StatsEntry] = []
        result.reserveCapacity(entries.count)
        for index in entries.indices { result.append(entries[index].entry()) }
        return StatsReport(entries: result)
    }
}
