import XMPP

/// Typed attribute reading for the Jingle readers: every failure is a ``JingleError`` naming the
/// element, the attribute and the value.
extension XMPPElement {
    /// The attribute `attribute`, required and a token (non-empty, no whitespace or control
    /// character: it ends up in an SDP line).
    func requiredToken(_ attribute: String) throws(JingleError) -> String {
        guard let value = self[attribute: attribute] else {
            throw JingleError(.malformedJingle, "<\(name)> has no '\(attribute)' attribute")
        }
        return try Self.token(value, "<\(name) \(attribute)>")
    }

    /// The attribute `attribute` when present, a token.
    func optionalToken(_ attribute: String) throws(JingleError) -> String? {
        guard let value = self[attribute: attribute] else { return nil }
        return try Self.token(value, "<\(name) \(attribute)>")
    }

    /// The attribute `attribute` when present, free text on one line (no CR, LF or NUL).
    func optionalLine(_ attribute: String) throws(JingleError) -> String? {
        guard let value = self[attribute: attribute] else { return nil }
        return try Self.line(value, "<\(name) \(attribute)>")
    }

    /// The attribute `attribute`, a decimal number of type `T`, required.
    func requiredNumber<T: FixedWidthInteger>(_ attribute: String, as type: T.Type = T.self) throws(JingleError) -> T {
        guard let value = try optionalNumber(attribute, as: type) else {
            throw JingleError(.malformedJingle, "<\(name)> has no '\(attribute)' attribute")
        }
        return value
    }

    /// The attribute `attribute` when present, a decimal number of type `T`.
    func optionalNumber<T: FixedWidthInteger>(_ attribute: String, as type: T.Type = T.self) throws(JingleError) -> T? {
        guard let text = self[attribute: attribute] else { return nil }
        guard let value = decimal(text, as: type) else {
            throw JingleError(.malformedJingle, "<\(name) \(attribute)='\(text.prefix(40))'> is not a number in 0...\(T.max)")
        }
        return value
    }

    /// The children in `namespace` called `name`, at most `limit` of them.
    func boundedChildren(_ name: String, namespace: String, limit: Int, what: String) throws(JingleError) -> [XMPPElement] {
        let found = children(name, namespace: namespace)
        guard found.count <= limit else {
            throw JingleError(.limitExceeded, "\(found.count) \(what) in <\(self.name)>, over the limit of \(limit)")
        }
        return found
    }

    /// `value` when it is a token.
    static func token(_ value: String, _ what: String) throws(JingleError) -> String {
        guard isToken(value) else {
            throw JingleError(.malformedJingle, "\(what) '\(value.prefix(40))' is empty, too long or holds whitespace")
        }
        return value
    }

    /// `value` when it fits on one SDP line.
    static func line(_ value: String, _ what: String) throws(JingleError) -> String {
        guard isLine(value) else {
            throw JingleError(.malformedJingle, "\(what) '\(value.prefix(40))' is too long or breaks the line")
        }
        return value
    }
}

/// `text` as a decimal number of type `T`: digits only (no sign, no spaces), in range.
func decimal<T: FixedWidthInteger>(_ text: some StringProtocol, as type: T.Type = T.self) -> T? {
    guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return T(text, radix: 10)
}

/// `text` without leading and trailing spaces, tabs and line breaks.
func trimmed(_ text: String) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
    return String(text[first...last])
}

/// Whether `value` can stand as one field of an SDP line: non-empty, at most 1 KiB, no
/// whitespace or control character.
func isToken(_ value: some StringProtocol) -> Bool {
    !value.isEmpty && value.utf8.count <= 1024 && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
}

/// Whether `value` can stand as free text in one SDP line (and one XML attribute): at most
/// 4 KiB, no control character (no line break, and nothing XML would normalise or refuse).
func isLine(_ value: some StringProtocol) -> Bool {
    value.utf8.count <= 4096 && !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
}
