#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rtcstats fast path: a `getstats` line read straight into a ``StatsDelta``, with no
/// value tree for the line, the delta or its entries.
extension JSONParser {
    /// A line `["getstats", pcId, {…}, time]` (or `getStats`), its delta appended to `delta`;
    /// `nil` for any other shape and for anything that is not valid JSON (the general path then
    /// reads the line and explains). After `nil`, `delta` holds whatever was read: empty it.
    /// `hints(pcId)` gives the entry keys that connection already has, in its order: a delta
    /// lists them in that order, so a key is usually matched by its bytes, not decoded and
    /// looked up.
    static func parseDeltaLine(_ bytes: ArraySlice<UInt8>, keys: inout KeyInterner, into delta: inout StatsDelta,
                               hints: (String) -> DeltaKeyHints) -> (peerConnection: String, time: Double)? {
        bytes.withUnsafeBufferPointer { buffer -> (peerConnection: String, time: Double)? in
            var cursor = Cursor(buffer)
            swap(&cursor.keys, &keys)
            defer { swap(&cursor.keys, &keys) }
            return try? cursor.parseDeltaLine(into: &delta, hints: hints)
        }
    }
}

/// A connection's entry keys in report order, for ``JSONParser/parseDeltaLine(_:keys:into:hints:)``.
struct DeltaKeyHints {
    /// One entry's key: its UTF-8 when that needs no escaping in JSON (then equal bytes in the
    /// dump are that key), and the key itself.
    struct Key {
        let plainBytes: [UInt8]?
        let key: String

        init(_ key: String) {
            self.key = key
            let bytes = Array(key.utf8)
            plainBytes = bytes.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 } ? nil : bytes
        }
    }

    var keys: [Key] = []
    /// Key → position in `keys`.
    var positions: [String: Int] = [:]
}

extension Cursor {
    mutating func parseDeltaLine(into delta: inout StatsDelta, hints: (String) -> DeltaKeyHints) throws(StatsParseError) -> (peerConnection: String, time: Double)? {
        skipWhitespace()
        guard at(UInt8(ascii: "[")) else { return nil }
        try enter()
        position += 1
        skipWhitespace()
        guard at(UInt8(ascii: "\"")) else { return nil }
        let name = try parseString()
        guard name == "getstats" || name == "getStats", try separator(close: UInt8(ascii: "]")) else { return nil }
        skipWhitespace()
        guard at(UInt8(ascii: "\"")) else { return nil }
        let peerConnection = try parseString()
        guard try separator(close: UInt8(ascii: "]")) else { return nil }
        skipWhitespace()
        guard at(UInt8(ascii: "{")) else { return nil }
        try parseDelta(into: &delta, hints: hints(peerConnection))
        guard try separator(close: UInt8(ascii: "]")) else { return nil }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] &- UInt8(ascii: "0") < 10 else { return nil }
        let time = try parseNumber()
        // Exactly four elements: anything longer takes the general path.
        guard try !separator(close: UInt8(ascii: "]")) else { return nil }
        depth -= 1
        skipWhitespace()
        guard position == bytes.count else { return nil }
        return (peerConnection, time)
    }

    /// The key at the cursor (at its opening quote) when it is `hint`'s, byte for byte; the
    /// cursor is then after its closing quote.
    @inline(__always) mutating func match(_ hint: DeltaKeyHints.Key) -> Bool {
        guard let plain = hint.plainBytes, let base = bytes.baseAddress else { return false }
        let start = position + 1
        guard start + plain.count < bytes.count, base[start + plain.count] == UInt8(ascii: "\"") else { return false }
        let equal = plain.withUnsafeBufferPointer { key in key.isEmpty || memcmp(key.baseAddress!, base + start, key.count) == 0 }
        if equal { position = start + plain.count + 1 }
        return equal
    }

    /// The delta object: members whose values are objects become entries; the others are read
    /// and dropped, except the first `timestamp`.
    mutating func parseDelta(into delta: inout StatsDelta, hints: DeltaKeyHints) throws(StatsParseError) {
        guard try openObject() else { return }
        var hint = 0
        repeat {
            let key: String
            if hint < hints.keys.count, match(hints.keys[hint]) {
                key = hints.keys[hint].key
                hint += 1
            } else {
                key = try parseKey().name
                if let position = hints.positions[key] { hint = position + 1 }
            }
            try colon()
            if at(UInt8(ascii: "{")) {
                if key.utf8.count == 9, key == "timestamp" { delta.noteTimestampMember(.object([])) }
                let first = delta.fields.count
                try parseDeltaEntry(into: &delta)
                delta.members.append(StatsDelta.Member(key: key, fields: first..<delta.fields.count))
            } else {
                let value = try parseValue()
                if key.utf8.count == 9, key == "timestamp" { delta.noteTimestampMember(value) }
            }
        } while try nextMember()
    }

    /// Whether the key at the cursor (at its opening quote) is `"timestamp"`, the key nearly
    /// every delta entry has (most have nothing else); the cursor is then after it. Compared as
    /// bytes: "timestam" as a little-endian word, then "p" and the closing quote (on a
    /// big-endian machine the word never matches, and the key is read as any other).
    @inline(__always) mutating func matchTimestampKey() -> Bool {
        guard position + 11 <= bytes.count, let base = bytes.baseAddress else { return false }
        guard UnsafeRawPointer(base + position + 1).loadUnaligned(as: UInt64.self) == 0x6D61_7473_656D_6974,
              base[position + 9] == UInt8(ascii: "p"), base[position + 10] == UInt8(ascii: "\"") else { return false }
        position += 11
        return true
    }

    /// One entry's object: its fields, in order, with their known names.
    mutating func parseDeltaEntry(into delta: inout StatsDelta) throws(StatsParseError) {
        guard try openObject() else { return }
        repeat {
            let key = matchTimestampKey() ? (name: "timestamp", known: KnownField.timestamp) : try parseKey()
            try colon()
            let value = try parseValue()
            delta.fields.append(StatsDelta.Field(name: key.name, known: key.known, value: value))
        } while try nextMember()
    }
}
