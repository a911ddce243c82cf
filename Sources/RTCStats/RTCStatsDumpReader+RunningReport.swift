/// The full state of one connection's stats, rebuilt from deltas.
///
/// Each entry is kept in a mutable form (fields by position, names to positions, each field's
/// ``KnownField`` looked up once), and its ``StatsEntry`` is rebuilt only when a delta changed
/// one of its fields; an entry whose delta only re-stamps it (most of them, every poll) gets a
/// new timestamp over the same fields. The report's id index is built again only when the
/// connection gains an entry.
struct RunningReport {
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
        /// Whether `known` was given with the fields (then only `positions` is left to build).
        var knownGiven = false
        /// The entry as last built; `nil` after a field changed.
        var built: StatsEntry?
        /// Whether `type` or `timestamp` was set since `built` was made.
        var restamped = false

        /// The entry's key in the dump (usually its id); unique in a report.
        var key: String
        /// Whether no two fields share a name (then a name found at a hinted position is the
        /// one `positions` would give).
        var uniqueNames = false

        init(_ entry: StatsEntry, known: [KnownField?]?, key: String) {
            self.key = key
            id = entry.id
            type = entry.type
            timestamp = entry.timestamp
            fields = entry.fields
            built = entry
            if let known, known.count == fields.count {
                self.known = known
                knownGiven = true
            }
        }

        /// Builds `known` and `positions` if not yet, and forgets the built entry.
        mutating func prepareForChange() {
            built = nil
            guard !indexed else { return }
            indexed = true
            if !knownGiven { known = fields.map { KnownField(name: $0.name) } }
            positions.reserveCapacity(fields.count)
            for (position, field) in fields.enumerated() where positions[field.name] == nil { positions[field.name] = position }
            uniqueNames = positions.count == fields.count
        }

        /// The first field named `name`: `hint` first (deltas list fields in the entry's
        /// order), then the table. Only after ``prepareForChange()``.
        func position(of name: String, hint: Int) -> Int? {
            if uniqueNames {
                // A delta lists only the changed fields: the next one is usually a few
                // places on from the last.
                var candidate = hint
                let end = Swift.min(fields.count, hint + 8)
                while candidate < end {
                    if fields[candidate].name == name { return candidate }
                    candidate += 1
                }
            }
            return positions[name]
        }

        /// Applies one delta's fields for this entry, in place.
        mutating func apply(_ changes: ArraySlice<StatsDelta.Field>, lineTime: Double) {
            if !indexed { prepareForChange() }
            var fieldHint = 0
            for field in changes {
                switch field.known {
                case .id?: continue
                case .type?:
                    if let type = field.value.string {
                        self.type = StatsType(rawValue: type)
                        restamped = true
                    }
                case .timestamp?:
                    if let stamp = field.value.number {
                        timestamp = stamp == 0 ? lineTime : stamp
                        restamped = true
                    }
                default:
                    built = nil
                    if let position = position(of: field.name, hint: fieldHint) {
                        fields[position].value = field.value
                        fieldHint = position + 1
                    } else {
                        positions[field.name] = fields.count
                        fields.append(StatsField(field.name, field.value))
                        known.append(field.known)
                    }
                }
            }
        }

        mutating func entry() -> StatsEntry {
            if let built {
                guard restamped else { return built }
                let entry = built.restamped(type: type, timestamp: timestamp)
                self.built = entry
                restamped = false
                return entry
            }
            let entry = StatsEntry(id: id, type: type, timestamp: timestamp, fields: fields, known: known)
            built = entry
            restamped = false
            return entry
        }
    }

    /// In first-seen order (the report's order), found by key through `hints.positions`.
    private var entries: [RunningEntry] = []
    /// The entries' keys, in order, and key → position: for the parser, and for the merge.
    private(set) var hints = DeltaKeyHints()
    /// The id index of the last report and how many entries it covered; `nil` when that
    /// report had repeated ids.
    private var index: (entries: Int, index: EntryIndex)?

    /// The entry under `key`: `hint` first (a delta usually lists entries in the report's
    /// order), then the table.
    private func position(of key: String, hint: Int) -> Int? {
        if hint < hints.keys.count, hints.keys[hint].key == key { return hint }
        return hints.positions[key]
    }

    /// Merges one delta; when it throws (a new entry that cannot be read) nothing is changed:
    /// new entries are read before anything is written.
    mutating func merge(_ delta: StatsDelta, lineTime: Double) throws(StatsParseError) {
        var created: [String: (entry: StatsEntry, known: [KnownField?]?)] = [:]
        var hint = 0
        for member in delta.members {
            if let index = position(of: member.key, hint: hint) {
                hint = index + 1
                continue
            }
            guard created[member.key] == nil else { continue }
            if let made = StatsEntry.fromDelta(delta.fields[member.fields], fallbackID: member.key, defaultTimestamp: lineTime) {
                created[member.key] = made
            } else {
                created[member.key] = (try StatsEntry(fields: delta.statsFields(of: member), fallbackID: member.key, defaultTimestamp: lineTime), nil)
            }
        }
        hint = 0
        for member in delta.members {
            guard let index = position(of: member.key, hint: hint) else {
                hints.positions[member.key] = entries.count
                hints.keys.append(DeltaKeyHints.Key(member.key))
                let new = created[member.key]!
                entries.append(RunningEntry(new.entry, known: new.known, key: member.key))
                continue
            }
            hint = index + 1
            // The first change rebuilds the entry from its fields; later ones re-stamp it
            // unless a field changed.
            entries[index].apply(delta.fields[member.fields], lineTime: lineTime)
        }
    }

    mutating func report() -> StatsReport {
        var result: [StatsEntry] = []
        result.reserveCapacity(entries.count)
        for index in entries.indices { result.append(entries[index].entry()) }
        // Entries are never removed and their ids never change: while none is added, the
        // last report's index fits.
        if let index, index.entries == entries.count { return StatsReport(entries: result, uniqueIndex: index.index) }
        let report = StatsReport(entries: result)
        index = report.entryIndex.hasDuplicates ? nil : (entries.count, report.entryIndex)
        return report
    }
}

extension StatsEntry {
    /// What `init(fields:fallbackID:defaultTimestamp:)` makes of a delta's fields, using the
    /// ``KnownField`` the parser found for each (no name is looked up again), with the known
    /// field of each of the entry's fields. `nil` when an `id`, `type` or `timestamp` of an
    /// unexpected kind stays among the fields: that initializer then builds it.
    static func fromDelta(_ fields: ArraySlice<StatsDelta.Field>, fallbackID: String, defaultTimestamp: Double) -> (entry: StatsEntry, known: [KnownField?])? {
        var id = fallbackID
        var type: String?
        var timestamp: Double?
        var rest: [StatsField] = []
        var known: [KnownField?] = []
        rest.reserveCapacity(fields.count)
        known.reserveCapacity(fields.count)
        for field in fields {
            switch field.known {
            case .id?:
                guard let value = field.value.string else { return nil }
                id = value
            case .type?:
                guard let value = field.value.string else { return nil }
                type = value
            case .timestamp?:
                guard let value = field.value.number else { return nil }
                timestamp = value
            default:
                rest.append(StatsField(field.name, field.value))
                known.append(field.known)
            }
        }
        if timestamp == nil || timestamp == 0 { timestamp = defaultTimestamp }
        let resolvedType = type.map(StatsType.init(rawValue:)) ?? StatsType(inferredFromID: id) ?? StatsType(rawValue: "unknown")
        return (StatsEntry(id: id, type: resolvedType, timestamp: timestamp ?? defaultTimestamp, fields: rest, known: known), known)
    }
}
