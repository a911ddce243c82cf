/// What the engine remembers per entry of one peer connection, keyed by entry id.
///
/// A connection lists its entries in the same order report after report, so the slot at the
/// same position is tried first: one string comparison instead of hashing the id twice (a read
/// and a write) for every RTP entry of every report. A miss falls back to a linear search, and
/// a new id takes a new slot.
struct EntryMemory<Value: Sendable>: Sendable {
    private var ids: [String] = []
    private var values: [Value] = []

    /// The value remembered for `id` (`position` is where the entry sits in this report's list).
    func value(for id: String, position: Int) -> Value? {
        slot(of: id, position: position).map { values[$0] }
    }

    /// Remembers `value` for `id`.
    mutating func set(_ value: Value, for id: String, position: Int) {
        if let slot = slot(of: id, position: position) {
            values[slot] = value
        } else {
            ids.append(id)
            values.append(value)
        }
    }

    private func slot(of id: String, position: Int) -> Int? {
        if position < ids.count, ids[position] == id { return position }
        return ids.firstIndex(of: id)
    }
}
