/// A JSON value, members in the order the source wrote them: the package's one JSON type (stats
/// fields, recordings, Janus' messages, WebDriver's replies).
///
/// Every stats field the model does not know is kept as one of these, exactly as the source
/// carried it, so nothing a browser reports is ever dropped (the raw report pass-through and
/// `callscope` show them all).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([StatsField])

    /// The value as a number, when it is one (numeric strings are not converted).
    @inlinable public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value as a string, when it is one.
    @inlinable public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an identifier: a string as is, an integral number as its decimal digits
    /// (`1` → `"1"`), any other number in JSON form; `nil` for other values. For fields the W3C
    /// defines as strings that some sources write as numbers (`mid`, `rid`).
    public var identifier: String? {
        switch self {
        case .string(let value): return value
        case .number(let value):
            if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
            return JSONWriter.string(self)
        default: return nil
        }
    }

    /// The value as a Boolean, when it is one.
    @inlinable public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as an array, when it is one.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members of an object value, in source order, when it is one.
    public var object: [StatsField]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member named `name` of an object value.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.name == name }?.value
    }
}

/// One named member of a stats entry or of an object value, in source order.
public struct StatsField: Sendable, Hashable {
    /// The member name, e.g. `bytesSent`.
    public var name: String
    /// The member value.
    public var value: JSONValue

    /// Creates a field.
    public init(_ name: String, _ value: JSONValue) {
        self.name = name
        self.value = value
    }
}
