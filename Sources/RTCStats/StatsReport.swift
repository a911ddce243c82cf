/// One `RTCStatsReport`: the entries one `getStats()` call returned, looked up by id.
public struct StatsReport: Sendable, Hashable {
    /// The entries, in source order.
    public private(set) var entries: [StatsEntry]
    private var index: EntryIndex

    /// Creates a report. When two entries share an id, the later one wins.
    public init(entries: [StatsEntry]) {
        var unique = entries
        var index = EntryIndex(unique)
        // Duplicate ids are rare (malformed input): keep the later entry, in the earlier place.
        if index.hasDuplicates {
            var positions: [String: Int] = [:]
            var deduplicated: [StatsEntry] = []
            for entry in entries {
                if let existing = positions[entry.id] {
                    deduplicated[existing] = entry
                } else {
                    positions[entry.id] = deduplicated.count
                    deduplicated.append(entry)
                }
            }
            unique = deduplicated
            index = EntryIndex(unique)
        }
        self.entries = unique
        self.index = index
    }

    /// A report over entries whose ids `index` was built for (the same ids at the same
    /// positions, none repeated): a reader that emits one report per poll over a set of
    /// entries that rarely grows builds the index once.
    init(entries: [StatsEntry], uniqueIndex index: EntryIndex) {
        self.entries = entries
        self.index = index
    }

    /// The id index, to pass to ``init(entries:uniqueIndex:)`` for a later report with the same ids.
    var entryIndex: EntryIndex { index }

    /// The entry with this id.
    public subscript(id: String) -> StatsEntry? {
        index.position(of: id, in: entries).map { entries[$0] }
    }

    /// The entries of one type, in source order.
    public func entries(ofType type: StatsType) -> [StatsEntry] {
        entries.filter { $0.type == type }
    }

    /// The candidate pair the first transport that names one has selected
    /// (`selectedCandidatePairId`); `nil` when none does or the pair is not in the report.
    public var selectedCandidatePair: StatsEntry? {
        entries(ofType: .transport).lazy.compactMap(\.selectedCandidatePairID).compactMap { self[$0] }.first
    }

    /// The latest entry timestamp (ms since the epoch); `nil` for an empty report.
    public var timestamp: Double? {
        entries.lazy.map(\.timestamp).max()
    }

    /// The number of entries.
    public var count: Int { entries.count }
}
