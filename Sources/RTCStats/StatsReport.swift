/// One `RTCStatsReport`: the entries one `getStats()` call returned, looked up by id.
public struct StatsReport: Sendable, Hashable {
    /// The entries, in source order.
    public private(set) var entries: [StatsEntry]
    private var indexByID: [String: Int]

    /// Creates a report. When two entries share an id, the later one wins.
    public init(entries: [StatsEntry]) {
        var unique: [StatsEntry] = []
        unique.reserveCapacity(entries.count)
        var index: [String: Int] = [:]
        index.reserveCapacity(entries.count)
        for entry in entries {
            if let existing = index[entry.id] {
                unique[existing] = entry
            } else {
                index[entry.id] = unique.count
                unique.append(entry)
            }
        }
        self.entries = unique
        self.indexByID = index
    }

    /// The entry with this id.
    public subscript(id: String) -> StatsEntry? {
        guard let index = indexByID[id] else { return nil }
        return entries[index]
    }

    /// The entries of one type, in source order.
    public func entries(ofType type: StatsType) -> [StatsEntry] {
        entries.filter { $0.type == type }
    }

    /// The latest entry timestamp (ms since the epoch); `nil` for an empty report.
    public var timestamp: Double? {
        entries.lazy.map(\.timestamp).max()
    }

    /// The number of entries.
    public var count: Int { entries.count }
}
