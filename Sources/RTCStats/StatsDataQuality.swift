/// What a reader made of its input: how much it read, what it skipped and why, and how many
/// values it dropped and why. Every replay ends with ``summaryLine``, so doubtful data says so.
public struct StatsDataQuality: Sendable, Hashable {
    /// Why a value was dropped while the rest of its line or series was kept.
    public struct DropReason: RawRepresentable, Sendable, Hashable, Comparable {
        public var rawValue: String
        /// Creates a reason.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A time that is not a plausible Unix ms value (non-finite, `null`, beyond ±2^53).
        public static let implausibleTime = DropReason(rawValue: "implausibleTime")
        /// A series value with no timestamp to place it at (its series is longer than its times).
        public static let noTime = DropReason(rawValue: "noTime")

        public static func < (lhs: DropReason, rhs: DropReason) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Stats samples (reports) read.
    public var samplesRead = 0
    /// Event lines read (sender stats, state changes, ...).
    public var eventsRead = 0
    /// Lines or series skipped, by the code of the problem that made the reader skip them.
    /// Each one is also in ``StatsTimeline/problems`` with its line or series.
    public var skipped: [StatsParseError.Code: Int] = [:]
    /// Values dropped from kept lines and series, by reason.
    public var valuesDropped: [DropReason: Int] = [:]
    /// Samples that came after a later sample of the same peer connection (and events after a
    /// later event of the same peer connection) in the file: kept, and put in time order. Peers and
    /// connections interleaving (a recorder writing one peer's lines after the other's) is
    /// not counted.
    public var reordered = 0

    /// An empty summary.
    public init() {}

    /// Whether anything was skipped, dropped or reordered.
    public var isClean: Bool { skipped.isEmpty && valuesDropped.isEmpty && reordered == 0 }

    /// The summary as one line, e.g. `data quality: 156 samples, 1 event read; skipped 1
    /// (invalidJSON 1); values dropped 0; reordered 3`.
    public var summaryLine: String {
        func list<Key: Hashable>(_ counts: [Key: Int], name: (Key) -> String) -> String {
            let total = counts.values.reduce(0, +)
            guard total > 0 else { return "0" }
            let parts = counts.map { (name($0.key), $0.value) }.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)" }
            return "\(total) (\(parts.joined(separator: ", ")))"
        }
        return "data quality: \(samplesRead) sample\(samplesRead == 1 ? "" : "s"), \(eventsRead) event\(eventsRead == 1 ? "" : "s") read; "
            + "skipped \(list(skipped) { $0.rawValue }); values dropped \(list(valuesDropped) { $0.rawValue }); reordered \(reordered)"
    }

    /// Counts `value` more values dropped for `reason`.
    mutating func drop(_ reason: DropReason, _ count: Int = 1) {
        guard count > 0 else { return }
        valuesDropped[reason, default: 0] += count
    }
}

/// What `sortByTime()` needs to know about a timeline, noted item by item: a reader
/// that notes each item as it appends it spares the sort a pass over the items.
struct TimeOrder {
    // Kind, peer and connection → the latest time seen; few distinct keys, and runs of the
    // same key: the last one found is tried first, strings compared (not hashed, no key
    // string built per item).
    private var latest: [(isSample: Bool, peer: String, peerConnection: String, time: Double)] = []
    private var lastFound = 0
    private var previous = -Double.infinity
    /// How many samples appeared after a later item of their own kind and peer connection.
    private(set) var reordered = 0
    /// Whether the items are in time order.
    private(set) var sorted = true

    /// Notes the next item (`peerConnection` "" for an event without one).
    mutating func note(isSample: Bool, peer: String, peerConnection: String, time: Double) {
        if time < previous { sorted = false }
        previous = Swift.max(previous, time)
        func matches(_ index: Int) -> Bool {
            latest[index].isSample == isSample && latest[index].peerConnection == peerConnection && latest[index].peer == peer
        }
        let found = lastFound < latest.count && matches(lastFound) ? lastFound : latest.indices.first(where: matches)
        guard let found else {
            latest.append((isSample, peer, peerConnection, time))
            lastFound = latest.count - 1
            return
        }
        lastFound = found
        if time < latest[found].time { reordered += 1 } else { latest[found].time = time }
    }

    /// Notes the next item.
    mutating func note(_ item: TimelineItem) {
        switch item {
        case .sample(let sample): note(isSample: true, peer: sample.peer, peerConnection: sample.peerConnection, time: sample.time)
        case .event(let event): note(isSample: false, peer: event.peer, peerConnection: event.peerConnection ?? "", time: event.time)
        }
    }
}

extension Array where Element == TimelineItem {
    /// Sorts by time, keeping file order among equal times, and returns how many samples had
    /// appeared after a later item of their own kind (sample or event) and peer connection.
    mutating func sortByTime() -> Int {
        var order = TimeOrder()
        for item in self { order.note(item) }
        return sortByTime(order)
    }

    /// `sortByTime()` with `order` noted for every item, in order, as they were appended.
    mutating func sortByTime(_ order: TimeOrder) -> Int {
        guard !order.sorted else { return 0 }
        let indexed = enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        self = indexed.map(\.element)
        return order.reordered
    }
}
