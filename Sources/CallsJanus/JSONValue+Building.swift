import RTCStats

/// JSON building and reading helpers over RTCStats' JSON value, for Janus messages.
extension JSONValue {
    /// An object from ordered pairs.
    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { StatsField($0.key, $0.value) })
    }

    /// A JSON number from an integer (Janus ids stay below 2^53, so a `Double` holds them exactly).
    static func integer<T: BinaryInteger>(_ value: T) -> JSONValue { .number(Double(value)) }

    /// The value as a non-negative integer id, when it is an integral number.
    var unsignedInteger: UInt64? {
        guard let number, number >= 0, number == number.rounded(), number < 18_446_744_073_709_551_616 else { return nil }
        return UInt64(number)
    }

    /// The same object with `field` set (added at the end when missing).
    func setting(_ name: String, _ value: JSONValue) -> JSONValue {
        guard var fields = object else { return self }
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value = value
        } else {
            fields.append(StatsField(name, value))
        }
        return .object(fields)
    }
}
