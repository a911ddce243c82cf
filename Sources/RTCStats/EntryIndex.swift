/// Entry ids → positions, as a flat open-addressing table: cheaper to build per report than a
/// `Dictionary<String, Int>` (no per-key SipHash), which matters because every report builds one.
struct EntryIndex: Sendable, Hashable {
    private var slots: [Int32]  // position + 1; 0 = empty
    private var mask: Int
    /// Whether two entries share an id (the index then points at the first).
    private(set) var hasDuplicates = false

    init(_ entries: [StatsEntry]) {
        var capacity = 16
        while capacity < entries.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: 0, count: capacity)
        mask = capacity - 1
        for (position, entry) in entries.enumerated() {
            var index = EntryIndex.hash(entry.id) & mask
            var duplicate = false
            while slots[index] != 0 {
                if entries[Int(slots[index]) - 1].id == entry.id { duplicate = true }
                index = (index + 1) & mask
            }
            if duplicate {
                hasDuplicates = true
            } else {
                slots[index] = Int32(position + 1)
            }
        }
    }

    /// The position of the entry with `id` in `entries`.
    func position(of id: String, in entries: [StatsEntry]) -> Int? {
        var index = EntryIndex.hash(id) & mask
        while slots[index] != 0 {
            let position = Int(slots[index]) - 1
            if entries[position].id == id { return position }
            index = (index + 1) & mask
        }
        return nil
    }

    /// FNV-1a over the UTF-8 bytes.
    static func hash(_ id: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var copy = id
        copy.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
