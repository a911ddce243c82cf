/// The fast path for stats reports: entries are built straight from the bytes, with `id`,
/// `type` and `timestamp` taken out and the known-field index filled as fields are appended,
/// so there is no intermediate JSON tree and no second pass. Any shape it does not expect makes
/// it return `nil`, and the caller reads the same bytes with the general parser.
extension JSONParser {
    /// The entries of a `getStats()` JSON array or id-keyed object, or `nil` when the shape needs
    /// the general path (malformed JSON still throws).
    static func parseEntries(_ document: JSONDocument, defaultTimestamp: Double?) throws(StatsParseError) -> [StatsEntry]? {
        var result: Result<[StatsEntry]?, StatsParseError> = .success(nil)
        document.bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer, document: document, base: 0)
            do throws(StatsParseError) {
                guard let entries = try cursor.parseEntries(defaultTimestamp: defaultTimestamp) else { return }
                cursor.skipWhitespace()
                result = cursor.position == buffer.count ? .success(entries) : .success(nil)
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// One recording line, read on the fast path; `nil` when it needs the general path.
    static func parseRecordingLine(_ document: JSONDocument, range: Range<Int>) throws(StatsParseError) -> RecordingLine? {
        var result: Result<RecordingLine?, StatsParseError> = .success(nil)
        document.bytes[range].withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer, document: document, base: range.lowerBound)
            do throws(StatsParseError) {
                result = .success(try cursor.parseRecordingLine())
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }
}

/// A sample line of a recording, as the fast path reads it.
struct RecordingLine {
    var time: Double
    var peer: String?
    var peerConnection: String?
    var entries: [StatsEntry]
}

extension Cursor {
    mutating func parseEntries(defaultTimestamp: Double?) throws(StatsParseError) -> [StatsEntry]? {
        skipWhitespace()
        guard position < bytes.count else { throw failure("expected a stats report") }
        var entries: [StatsEntry] = []
        if bytes[position] == UInt8(ascii: "[") {
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return entries
            }
            entries.reserveCapacity(32)
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
                guard let entry = try parseEntry(fallbackID: nil, defaultTimestamp: defaultTimestamp) else { return nil }
                entries.append(entry)
                guard try separator(close: UInt8(ascii: "]")) else { return entries }
            }
        }
        guard bytes[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return entries
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a quoted object key") }
            let key = try parseKey()
            try colon()
            if position < bytes.count, bytes[position] == UInt8(ascii: "{") {
                guard let entry = try parseEntry(fallbackID: key.name, defaultTimestamp: defaultTimestamp) else { return nil }
                entries.append(entry)
            } else {
                _ = try parseValue()  // A report-level member such as a delta dump's "timestamp".
            }
            guard try separator(close: UInt8(ascii: "}")) else { return entries }
        }
    }

    /// One entry object; `nil` when it lacks an id or a timestamp (the general path explains).
    /// Known fields are decoded; the others are validated and skipped, and the entry keeps its
    /// object's bytes to decode them on demand.
    mutating func parseEntry(fallbackID: String?, defaultTimestamp: Double?) throws(StatsParseError) -> StatsEntry? {
        guard let document else { return nil }
        let start = position
        var values: [JSONValue] = []
        values.reserveCapacity(12)
        var index = KnownFieldIndex()
        var id = fallbackID
        var type: String?
        var timestamp: Double?
        if try openObject() {
            repeat {
                let key = try parseKnownKey()
                try colon()
                if let known = key {
                    let value = try parseValue()
                    switch (known, value) {
                    case (.id, .string(let text)): id = text
                    case (.type, .string(let text)): type = text
                    case (.timestamp, .number(let number)): timestamp = number
                    case (.id, _), (.type, _), (.timestamp, _): break
                    default:
                        if index.position(of: known) == nil {
                            index.record(known, at: values.count)
                            values.append(value)
                        }
                    }
                } else {
                    try skipValue()
                }
            } while try nextMember()
        }
        if let defaultTimestamp, timestamp == nil || timestamp == 0 { timestamp = defaultTimestamp }
        guard let id, let timestamp else { return nil }
        let resolved = type.map(StatsType.init(rawValue:)) ?? StatsType(inferredFromID: id) ?? StatsType(rawValue: "unknown")
        return StatsEntry(id: id, type: resolved, timestamp: timestamp, knownValues: values, knownFields: index,
                          document: document, range: (base + start)..<(base + position))
    }

    /// Validates and steps over one value without building it.
    mutating func skipValue() throws(StatsParseError) {
        guard position < bytes.count else { throw failure("expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            position += 1
            if let end = plainStringEnd(from: position) {
                position = end + 1
            } else {
                _ = try parseEscapedString(from: position)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Objects and arrays differ only by the key before each value.
            let keyed = bytes[position] == UInt8(ascii: "{")
            let close = keyed ? UInt8(ascii: "}") : UInt8(ascii: "]")
            try enter()
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == close {
                position += 1
            } else {
                while true {
                    skipWhitespace()
                    if keyed {
                        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a quoted object key") }
                        try skipValue()
                        try colon()
                    }
                    try skipValue()
                    guard try separator(close: close) else { break }
                }
            }
            depth -= 1
        default:
            _ = try parseValue()
        }
    }

    /// Checks a number's grammar (as ``parseNumber()`` does) and steps over it.
    mutating func skipNumber() throws(StatsParseError) {
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        if position == integerStart { throw failure("expected a digit") }
        if position - integerStart > 1, bytes[integerStart] == UInt8(ascii: "0") {
            position = integerStart
            throw failure("leading zero in a number")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
            if position == fractionStart { throw failure("expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponentStart = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
            if position == exponentStart { throw failure("expected a digit in the exponent") }
        }
    }

    /// `{"t":…,"peer":…,"pc":…,"report":[…]}`; `nil` for event lines and anything unusual.
    mutating func parseRecordingLine() throws(StatsParseError) -> RecordingLine? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        var time: Double?
        var peer: String?
        var peerConnection: String?
        var entries: [StatsEntry]?
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let key = try parseKey()
            try colon()
            switch key.name {
            case "t":
                guard case .number(let value) = try parseValue() else { return nil }
                time = value
            case "peer":
                guard case .string(let value) = try parseValue() else { return nil }
                peer = value
            case "pc":
                guard case .string(let value) = try parseValue() else { return nil }
                peerConnection = value
            case "report":
                guard let parsed = try parseEntries(defaultTimestamp: time) else { return nil }
                entries = parsed
            case "event":
                return nil
            default:
                _ = try parseValue()
            }
            guard try separator(close: UInt8(ascii: "}")) else { break }
        }
        skipWhitespace()
        guard position == bytes.count, let time, let entries else { return nil }
        return RecordingLine(time: time, peer: peer, peerConnection: peerConnection, entries: entries)
    }
}
