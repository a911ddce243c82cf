/// The cursor's steps through objects and arrays, member by member, shared by the general
/// parser, the report fast path and the delta-line path.
extension Cursor {
    /// Whether the byte at the cursor is `byte`.
    @inline(__always) func at(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    /// After a member or element: `true` for ',', `false` for the closing byte.
    @inline(__always) mutating func separator(close: UInt8) throws(StatsParseError) -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
        let byte = bytes[position]
        if byte == UInt8(ascii: ",") {
            position += 1
            return true
        }
        if byte == close {
            position += 1
            return false
        }
        throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'")
    }

    /// The `:` after a key, and the whitespace around it.
    @inline(__always) mutating func colon() throws(StatsParseError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
        position += 1
        skipWhitespace()
    }

    /// Enters the object at the cursor (at its `{`): `true` with the cursor at its first key's
    /// opening quote, `false` (the cursor after it) when it is empty. With ``nextMember()``,
    /// the object prologue and key loop every object reader shares (the general tree, report
    /// entries, the delta object and its entries), as a plain loop (no closure to inline: this
    /// is the hot path of replay):
    /// `guard try openObject() else { return }; repeat { … } while try nextMember()`.
    @inline(__always) mutating func openObject() throws(StatsParseError) -> Bool {
        try enter()
        position += 1
        skipWhitespace()
        if at(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return false
        }
        try expectKey()
        return true
    }

    /// After a member's value: `true` with the cursor at the next key's opening quote, `false`
    /// (the cursor after it, the object left) at the closing `}`.
    @inline(__always) mutating func nextMember() throws(StatsParseError) -> Bool {
        guard try separator(close: UInt8(ascii: "}")) else {
            depth -= 1
            return false
        }
        try expectKey()
        return true
    }

    @inline(__always) private mutating func expectKey() throws(StatsParseError) {
        skipWhitespace()
        guard at(UInt8(ascii: "\"")) else { throw failure("expected a quoted object key") }
    }
}
