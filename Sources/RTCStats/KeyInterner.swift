#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes each distinct object key once per document, and tells which ``KnownField`` it is.
/// An open-addressing table keyed by the key's length and first and last eight bytes, which
/// identify keys of up to 16 bytes exactly; longer keys also compare their middle bytes.
struct KeyInterner {
    private struct Slot {
        var count: Int
        var head: UInt64
        var tail: UInt64
        var entry: Int  // index + 1; 0 = empty
    }

    /// Empty until the first key: a parse without objects (a series' number array, most
    /// rtcstats lines' small values) then costs no table.
    private var slots: [Slot] = []
    private var strings: [String] = []
    private var knowns: [KnownField?] = []
    private var longKeys: [[UInt8]] = []

    /// An empty table.
    init() {}

    /// A table with room for `expectedKeys` distinct keys from the start: a dump read line by
    /// line with one table has hundreds, and would otherwise regrow it several times.
    init(expectedKeys: Int) {
        var count = 128
        while count < expectedKeys * 2 { count <<= 1 }
        slots = [Slot](repeating: Slot(count: 0, head: 0, tail: 0, entry: 0), count: count)
    }

    /// The length and first/last eight bytes of a key, and a hash of them.
    static func signature(_ bytes: UnsafeBufferPointer<UInt8>) -> (head: UInt64, tail: UInt64, hash: UInt64) {
        let count = bytes.count
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8, let base = bytes.baseAddress {
            head = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            tail = UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self)
        } else {
            for index in 0..<count { head |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        }
        var hash = (head &* 0x9E37_79B9_7F4A_7C15) ^ ((tail &+ UInt64(count)) &* 0xC2B2_AE3D_27D4_EB4F)
        hash ^= hash >> 29
        return (head, tail, hash)
    }

    mutating func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, KnownField?) {
        let count = bytes.count
        let (head, tail, hash) = KeyInterner.signature(bytes)
        if slots.isEmpty { slots = [Slot](repeating: Slot(count: 0, head: 0, tail: 0, entry: 0), count: 128) }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot.entry == 0 { break }
            if slot.count == count, slot.head == head, slot.tail == tail,
               count <= 16 || longKeys[slot.entry - 1].withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0 }) {
                return (strings[slot.entry - 1], knowns[slot.entry - 1])
            }
            index = (index + 1) & mask
        }
        let string = String(decoding: bytes, as: UTF8.self)
        let known = KnownFieldTable.shared.field(bytes, head: head, tail: tail, hash: hash)
        strings.append(string)
        knowns.append(known)
        longKeys.append(count > 16 ? Array(bytes) : [])
        slots[index] = Slot(count: count, head: head, tail: tail, entry: strings.count)
        if strings.count * 2 > slots.count { grow() }
        return (string, known)
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(count: 0, head: 0, tail: 0, entry: 0), count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot.entry != 0 {
            var hash = (slot.head &* 0x9E37_79B9_7F4A_7C15) ^ ((slot.tail &+ UInt64(slot.count)) &* 0xC2B2_AE3D_27D4_EB4F)
            hash ^= hash >> 29
            var index = Int(truncatingIfNeeded: hash) & mask
            while slots[index].entry != 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }
}

/// ``KnownField`` names by key signature, built once, so a new key is classified without
/// hashing a `String`.
struct KnownFieldTable: Sendable {
    static let shared = KnownFieldTable()

    private let signatures: [(count: Int, head: UInt64, tail: UInt64, name: [UInt8], field: KnownField)?]
    private let mask: Int

    private init() {
        var table = [(count: Int, head: UInt64, tail: UInt64, name: [UInt8], field: KnownField)?](repeating: nil, count: 256)
        for field in KnownField.allCases {
            let name = Array(field.name.utf8)
            name.withUnsafeBufferPointer { bytes in
                let (head, tail, hash) = KeyInterner.signature(bytes)
                var index = Int(truncatingIfNeeded: hash) & 255
                while table[index] != nil { index = (index + 1) & 255 }
                table[index] = (name.count, head, tail, name, field)
            }
        }
        signatures = table
        mask = 255
    }

    func field(_ bytes: UnsafeBufferPointer<UInt8>, head: UInt64, tail: UInt64, hash: UInt64) -> KnownField? {
        var index = Int(truncatingIfNeeded: hash) & mask
        while let candidate = signatures[index] {
            if candidate.count == bytes.count, candidate.head == head, candidate.tail == tail,
               bytes.count <= 16 || candidate.name.elementsEqual(bytes) {
                return candidate.field
            }
            index = (index + 1) & mask
        }
        return nil
    }
}
