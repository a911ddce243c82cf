#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, strict JSON parser over UTF-8 bytes that produces ``StatsValue``s.
///
/// Written for stats reports: object keys repeat across the entries of a report, so each
/// distinct key is decoded once per parse and shared; integers and short decimals take an
/// exact fast path. It is several times faster than `JSONSerialization` on Linux (see
/// `callscope bench`).
public enum JSONParser {
    /// Parses one complete JSON document.
    public static func parse(_ bytes: [UInt8]) throws(StatsParseError) -> StatsValue {
        try parse(bytes[...])
    }

    /// Parses one complete JSON document held in part of a byte array.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(StatsParseError) -> StatsValue {
        var result: Result<StatsValue, StatsParseError> = .failure(StatsParseError(.truncated, "empty input"))
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
    public static func parse(_ text: String) throws(StatsParseError) -> StatsValue {
        var copy = text
        let result = copy.withUTF8 { buffer -> Result<StatsValue, StatsParseError> in
            do throws(StatsParseError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// A JSON array of numbers only (`[1,2.5,-3]`), as doubles without building a value per
    /// element; `nil` when the text is anything else (the general parser then reads it, and
    /// explains any error). webrtc-internals series are mostly such arrays.
    static func parseNumberArray(_ text: String) -> [Double]? {
        var copy = text
        return copy.withUTF8 { buffer -> [Double]? in
            var cursor = Cursor(buffer)
            cursor.skipWhitespace()
            guard cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "[") else { return nil }
            cursor.position += 1
            var numbers: [Double] = []
            numbers.reserveCapacity(buffer.count / 4)
            cursor.skipWhitespace()
            if cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "]") {
                cursor.position += 1
            } else {
                while true {
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    let byte = buffer[cursor.position]
                    guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 else { return nil }
                    guard let number = try? cursor.parseNumber() else { return nil }
                    numbers.append(number)
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    if buffer[cursor.position] == UInt8(ascii: ",") {
                        cursor.position += 1
                        continue
                    }
                    guard buffer[cursor.position] == UInt8(ascii: "]") else { return nil }
                    cursor.position += 1
                    break
                }
            }
            cursor.skipWhitespace()
            return cursor.position == buffer.count ? numbers : nil
        }
    }

    /// Parses the bytes in `buffer`.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(StatsParseError) -> StatsValue {
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

    mutating func parseDocument() throws(StatsParseError) -> StatsValue {
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

    mutating func parseValue() throws(StatsParseError) -> StatsValue {
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

    mutating func parseObject() throws(StatsParseError) -> StatsValue {
        try enter()
        position += 1
        var fields: [StatsField] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(fields)
        }
        fields.reserveCapacity(16)
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw failure("expected a quoted object key")
            }
            let key = try parseKey().name
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw failure("expected ':' after an object key")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            fields.append(StatsField(key, value))
            skipWhitespace()
            guard position < bytes.count else { throw failure("expected ',' or '}'") }
            let separator = bytes[position]
            position += 1
            if separator == UInt8(ascii: ",") { continue }
            if separator == UInt8(ascii: "}") { break }
            position -= 1
            throw failure("expected ',' or '}'")
        }
        depth -= 1
        return .object(fields)
    }

    mutating func parseArray() throws(StatsParseError) -> StatsValue {
        try enter()
        position += 1
        var elements: [StatsValue] = []
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
    /// doubles. Otherwise `strtod`.
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
        if digits > 1, bytes[integerStart] == UInt8(ascii: "0") {
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
