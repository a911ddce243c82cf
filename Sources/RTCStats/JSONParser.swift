#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, strict JSON parser over UTF-8 bytes that produces ``JSONValue``s.
///
/// Written for stats reports: object keys repeat across the entries of a report, so each
/// distinct key is decoded once per parse and shared; integers and short decimals take an
/// exact fast path. It is several times faster than `JSONSerialization` on Linux (see
/// `callscope bench`).
package enum JSONParser {
    /// Parses one complete JSON document.
    package static func parse(_ bytes: [UInt8]) throws(StatsParseError) -> JSONValue {
        try parse(bytes[...])
    }

    /// Parses one complete JSON document held in part of a byte array.
    package static func parse(_ bytes: ArraySlice<UInt8>) throws(StatsParseError) -> JSONValue {
        var result: Result<JSONValue, StatsParseError> = .failure(StatsParseError(.truncated, "empty input"))
        bytes.withUnsafeBufferPointer { buffer in
            do throws(StatsParseError) {
                result = .success(try parse(buffer))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one complete JSON document held in a string.
    package static func parse(_ text: String) throws(StatsParseError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer -> Result<JSONValue, StatsParseError> in
            do throws(StatsParseError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses the bytes in `buffer`.
    /// Parses one document of many (the lines of a dump) with one key table for all of them:
    /// a key seen in an earlier line is neither decoded nor classified again, and is the same
    /// string.
    static func parse(_ bytes: ArraySlice<UInt8>, keys: inout KeyInterner) throws(StatsParseError) -> JSONValue {
        var result: Result<JSONValue, StatsParseError> = .failure(StatsParseError(.truncated, "empty input"))
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer)
            swap(&cursor.keys, &keys)
            do throws(StatsParseError) {
                result = .success(try cursor.parseDocument())
            } catch {
                result = .failure(error)
            }
            swap(&cursor.keys, &keys)
        }
        return try result.get()
    }

    package static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(StatsParseError) -> JSONValue {
        var cursor = Cursor(buffer)
        return try cursor.parseDocument()
    }
}

/// The parser's state over one buffer (internal so the report fast path can extend it).
struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var keys = KeyInterner()
    var depth = 0
    static let maximumDepth = 256
    /// The document `bytes` belong to, and where they start in it (for entries that keep
    /// their object's bytes).
    let document: JSONDocument?
    let base: Int
    let knownFields = KnownFieldTable.shared

    init(_ bytes: UnsafeBufferPointer<UInt8>, document: JSONDocument? = nil, base: Int = 0) {
        self.bytes = bytes
        self.document = document
        self.base = base
    }

    mutating func parseDocument() throws(StatsParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position != bytes.count {
            throw failure("unexpected content after the JSON value")
        }
        return value
    }

    func failure(_ message: String) -> StatsParseError {
        if position >= bytes.count {
            return StatsParseError(.truncated, "the JSON ends early: \(message)", offset: position)
        }
        let found = bytes[position]
        let shown = (0x20..<0x7F).contains(found) ? "'\(Character(Unicode.Scalar(found)))'" : "byte 0x\(String(found, radix: 16))"
        return StatsParseError(.invalidJSON, "\(message), found \(shown)", offset: position)
    }

    @inline(__always) mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(StatsParseError) -> JSONValue {
        guard position < bytes.count else { throw failure("expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(StatsParseError) {
        let count = literal.utf8CodeUnitCount
        let base = literal.utf8Start
        for index in 0..<count {
            guard position + index < bytes.count else {
                position += index
                throw failure("expected \(literal)")
            }
            if bytes[position + index] != base[index] { throw failure("expected \(literal)") }
        }
        position += count
    }

    mutating func enter() throws(StatsParseError) {
        depth += 1
        if depth > Cursor.maximumDepth { throw failure("nesting deeper than \(Cursor.maximumDepth)") }
    }

    mutating func parseObject() throws(StatsParseError) -> JSONValue {
        var fields: [StatsField] = []
        guard try openObject() else { return .object(fields) }
        fields.reserveCapacity(16)
        repeat {
            let key = try parseKey().name
            try colon()
            fields.append(StatsField(key, try parseValue()))
        } while try nextMember()
        return .object(fields)
    }

    mutating func parseArray() throws(StatsParseError) -> JSONValue {
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw failure("expected ',' or ']'") }
            let separator = bytes[position]
            position += 1
            if separator == UInt8(ascii: ",") { continue }
            if separator == UInt8(ascii: "]") { break }
            position -= 1
            throw failure("expected ',' or ']'")
        }
        depth -= 1
        return .array(elements)
    }

    mutating func parseString() throws(StatsParseError) -> String {
        position += 1
        let start = position
        if let end = plainStringEnd(from: start) {
            position = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return String(decoding: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if byte < 0x20 { throw failure("control character inside a string") }
            position += 1
        }
        throw failure("unterminated string")
    }

    /// An object key: decoded once per document, with the ``KnownField`` it names.
    mutating func parseKey() throws(StatsParseError) -> (name: String, known: KnownField?) {
        position += 1
        let start = position
        guard let end = plainStringEnd(from: start) else {
            let name = try parseEscapedString(from: start)
            return (name, KnownField(name: name))
        }
        position = end + 1
        return keys.lookup(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// A key of a stats entry: only which ``KnownField`` it is matters (other fields are kept
    /// as the entry's bytes), so no string is made.
    mutating func parseKnownKey() throws(StatsParseError) -> KnownField? {
        position += 1
        let start = position
        guard let end = plainStringEnd(from: start) else {
            return KnownField(name: try parseEscapedString(from: start))
        }
        position = end + 1
        let key = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let (head, tail, hash) = KeyInterner.signature(key)
        return knownFields.field(key, head: head, tail: tail, hash: hash)
    }

    /// The position of the closing '"' of a string starting at `start` that needs no
    /// unescaping; `nil` when it holds an escape or a control character or is unterminated (the
    /// careful path then decodes it or reports the error). Eight bytes at a time (SWAR).
    @inline(__always) func plainStringEnd(from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        let count = bytes.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") { return index }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    mutating func parseEscapedString(from start: Int) throws(StatsParseError) -> String {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(64)
        position = start
        while position < bytes.count {
            // Copy the run up to the next quote, backslash or control byte in one step.
            let runStart = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                position += 1
            }
            if position > runStart { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position])) }
            guard position < bytes.count else { break }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count,
                       bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scratch.append(contentsOf: [0xEF, 0xBF, 0xBD])
                            scalar = low
                        }
                    }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    scratch.append(contentsOf: Array(String(character).utf8))
                default:
                    position -= 1
                    throw failure("invalid escape")
                }
            default:
                if byte < 0x20 {
                    position -= 1
                    throw failure("control character inside a string")
                }
                scratch.append(byte)
            }
        }
        throw failure("unterminated string")
    }

    mutating func parseHex4() throws(StatsParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("expected four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected a hex digit")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Exact (correctly rounded) when all the digits, as one integer, are at most 2^53 and the
    /// fraction has at most 22 digits: both operands of the one division are then exact
    /// doubles. Otherwise `strtod`. Leading zeros are not counted against the 19 digits a
    /// `UInt64` holds (`0.0005798516800439467`, common in audio levels, has 16).
    mutating func parseNumber() throws(StatsParseError) -> Double {
        let start = position
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        let integerStart = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        if position == integerStart { throw failure("expected a digit") }
        if position - integerStart > 1, bytes[integerStart] == UInt8(ascii: "0") {
            position = integerStart
            throw failure("leading zero in a number")
        }
        var simple = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0"))
                digits += 1
                fractionDigits += 1
                position += 1
            }
            if position == fractionStart { throw failure("expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            simple = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponentStart = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
            if position == exponentStart { throw failure("expected a digit in the exponent") }
        }
        if simple, digits > 19, fractionDigits <= 22, bytes[integerStart] == UInt8(ascii: "0") {
            // Rare: a value below 1 whose leading zeros (0.000…) make it long; only the digits
            // after them can have overflowed the mantissa.
            var index = integerStart
            while index < position, bytes[index] == UInt8(ascii: "0") || bytes[index] == UInt8(ascii: ".") {
                if bytes[index] == UInt8(ascii: "0") { digits -= 1 }
                index += 1
            }
        }
        if simple, digits <= 19, mantissa <= 1 << 53, fractionDigits <= 22 {
            let magnitude = fractionDigits == 0 ? Double(mantissa) : Double(mantissa) / powersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }
        return slowNumber(from: start)
    }

    func slowNumber(from start: Int) -> Double {
        let count = position - start
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[start + index]) }
            buffer[count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }
}

private let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}
