/// The rtcstats fast path: a `getstats` line read straight into a ``StatsDelta``, with no
/// value tree for the line, the delta or its entries.
extension JSONParser {
    /// A line `["getstats", pcId, {…}, time]` (or `getStats`), its delta appended to `delta`;
    /// `nil` for any other shape and for anything that is not valid JSON (the general path then
    /// reads the line and explains). After `nil`, `delta` holds whatever was read: empty it.
    static func parseDeltaLine(_ bytes: ArraySlice<UInt8>, keys: inout KeyInterner, into delta: inout StatsDelta) -> (peerConnection: String, time: Double)? {
        bytes.withUnsafeBufferPointer { buffer -> (peerConnection: String, time: Double)? in
            var cursor = Cursor(buffer)
            swap(&cursor.keys, &keys)
            defer { swap(&cursor.keys, &keys) }
            return try? cursor.parseDeltaLine(into: &delta)
        }
    }
}

extension Cursor {
    /// Whether the byte at the cursor is `byte`.
    @inline(__always) func at(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    mutating func parseDeltaLine(into delta: inout StatsDelta) throws(StatsParseError) -> (peerConnection: String, time: Double)? {
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
        try parseDelta(into: &delta)
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

    /// The delta object: members whose values are objects become entries; the others are read
    /// and dropped, except the first `timestamp`.
    mutating func parseDelta(into delta: inout StatsDelta) throws(StatsParseError) {
        try enter()
        position += 1
        skipWhitespace()
        if at(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard at(UInt8(ascii: "\"")) else { throw failure("expected a quoted object key") }
            let key = try parseKey()
            try colon()
            if at(UInt8(ascii: "{")) {
                if key.known == .timestamp { delta.noteTimestampMember(.object([])) }
                let first = delta.fields.count
                try parseDeltaEntry(into: &delta)
                delta.members.append(StatsDelta.Member(key: key.name, fields: first..<delta.fields.count))
            } else {
                let value = try parseValue()
                if key.known == .timestamp { delta.noteTimestampMember(value) }
            }
            guard try separator(close: UInt8(ascii: "}")) else { break }
        }
        depth -= 1
    }

    /// One entry's object: its fields, in order, with their known names.
    mutating func parseDeltaEntry(into delta: inout StatsDelta) throws(StatsParseError) {
        try enter()
        position += 1
        skipWhitespace()
        if at(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard at(UInt8(ascii: "\"")) else { throw failure("expected a quoted object key") }
            let key = try parseKey()
            try colon()
            let value = try parseValue()
            delta.fields.append(StatsDelta.Field(name: key.name, known: key.known, value: value))
            guard try separator(close: UInt8(ascii: "}")) else { break }
        }
        depth -= 1
    }
}
