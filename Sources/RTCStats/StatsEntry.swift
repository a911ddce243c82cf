/// One entry of an `RTCStatsReport`: its `id`, `type`, `timestamp` and every other field, raw.
///
/// Typed accessors (``number(_:)``, ``string(_:)``, and the named properties in
/// `StatsEntry+Fields.swift`) read the fields the engine uses; everything else stays available
/// through ``fields``.
public struct StatsEntry: Sendable, Hashable {
    /// The stats object id, unique within one report.
    public var id: String
    /// The W3C type.
    public var type: StatsType
    /// Milliseconds since the Unix epoch (W3C `DOMHighResTimeStamp`).
    public var timestamp: Double
    /// Every field except `id`, `type` and `timestamp`, in source order.
    public private(set) var fields: [StatsField]
    /// Where the fields the engine reads are, so typed accessors need no string comparison.
    public private(set) var knownFields: KnownFieldIndex

    /// Creates an entry.
    public init(id: String, type: StatsType, timestamp: Double, fields: [StatsField]) {
        self.init(id: id, type: type, timestamp: timestamp, fields: fields, knownFields: KnownFieldIndex(fields))
    }

    /// Creates an entry whose known-field index the caller built (the parser does, for free).
    init(id: String, type: StatsType, timestamp: Double, fields: [StatsField], knownFields: KnownFieldIndex) {
        self.id = id
        self.type = type
        self.timestamp = timestamp
        self.fields = fields
        self.knownFields = knownFields
    }

    /// The raw value of a known field.
    @inlinable public func value(_ field: KnownField) -> StatsValue? {
        guard let position = knownFields.position(of: field) else { return nil }
        return fields[position].value
    }

    /// The raw value of the field `name`.
    @inlinable public subscript(name: String) -> StatsValue? {
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// The field `name` as a number; `nil` when absent or not a number.
    @inlinable public func number(_ name: String) -> Double? { self[name]?.number }

    /// The field `name` as a string; `nil` when absent or not a string.
    @inlinable public func string(_ name: String) -> String? { self[name]?.string }

    /// The field `name` as a Boolean; `nil` when absent or not a Boolean.
    @inlinable public func bool(_ name: String) -> Bool? { self[name]?.bool }

    /// Sets (or adds) the field `name`.
    public mutating func set(_ name: String, _ value: StatsValue) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value = value
        } else {
            if let known = KnownField(name: name) { knownFields.record(known, at: fields.count) }
            fields.append(StatsField(name, value))
        }
    }
}
