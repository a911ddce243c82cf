/// One entry of an `RTCStatsReport`: its `id`, `type`, `timestamp` and every other field, raw.
///
/// Typed accessors (``number(_:)``, ``string(_:)``, and the named properties in
/// `StatsEntry+Fields.swift`) read the fields the engine uses; everything else stays available
/// through ``fields``.
///
/// A value type over one shared, immutable storage object: copying an entry (the engine sorts
/// and groups them every report) costs one reference count, not a copy of every field.
public struct StatsEntry: Sendable, Hashable {
    /// The shared, immutable contents (immutable, so reads need no exclusivity checks; a
    /// change builds a new one).
    final class Storage: Sendable {
        let id: String
        let type: StatsType
        let timestamp: Double
        let fields: [StatsField]
        let knownFields: KnownFieldIndex

        init(id: String, type: StatsType, timestamp: Double, fields: [StatsField], knownFields: KnownFieldIndex) {
            self.id = id
            self.type = type
            self.timestamp = timestamp
            self.fields = fields
            self.knownFields = knownFields
        }
    }

    private var storage: Storage

    /// The stats object id, unique within one report.
    public var id: String {
        get { storage.id }
        set { replace(id: newValue) }
    }

    /// The W3C type.
    public var type: StatsType {
        get { storage.type }
        set { replace(type: newValue) }
    }

    /// Milliseconds since the Unix epoch (W3C `DOMHighResTimeStamp`).
    public var timestamp: Double {
        get { storage.timestamp }
        set { replace(timestamp: newValue) }
    }

    /// Every field except `id`, `type` and `timestamp`, in source order.
    public var fields: [StatsField] { storage.fields }

    /// Where the fields the engine reads are, so typed accessors need no string comparison.
    public var knownFields: KnownFieldIndex { storage.knownFields }

    /// Creates an entry.
    public init(id: String, type: StatsType, timestamp: Double, fields: [StatsField]) {
        self.init(id: id, type: type, timestamp: timestamp, fields: fields, knownFields: KnownFieldIndex(fields))
    }

    /// Creates an entry whose known-field index the caller built (the parser does, for free).
    init(id: String, type: StatsType, timestamp: Double, fields: [StatsField], knownFields: KnownFieldIndex) {
        storage = Storage(id: id, type: type, timestamp: timestamp, fields: fields, knownFields: knownFields)
    }

    private mutating func replace(id: String? = nil, type: StatsType? = nil, timestamp: Double? = nil, fields: [StatsField]? = nil, knownFields: KnownFieldIndex? = nil) {
        storage = Storage(id: id ?? storage.id, type: type ?? storage.type, timestamp: timestamp ?? storage.timestamp,
                          fields: fields ?? storage.fields, knownFields: knownFields ?? storage.knownFields)
    }

    /// Whether the entry is of `type` (one byte comparison for the known types).
    @inlinable public func isOfType(_ type: StatsType) -> Bool { self.type == type }

    /// The raw value of a known field.
    @inlinable public func value(_ field: KnownField) -> StatsValue? {
        guard let position = knownFields.position(of: field) else { return nil }
        return fields[position].value
    }

    /// The raw value of the field `name`.
    public subscript(name: String) -> StatsValue? {
        for field in storage.fields where field.name == name { return field.value }
        return nil
    }

    /// The field `name` as a number; `nil` when absent or not a number.
    public func number(_ name: String) -> Double? { self[name]?.number }

    /// The field `name` as a string; `nil` when absent or not a string.
    public func string(_ name: String) -> String? { self[name]?.string }

    /// The field `name` as a Boolean; `nil` when absent or not a Boolean.
    public func bool(_ name: String) -> Bool? { self[name]?.bool }

    /// Sets (or adds) the field `name`.
    public mutating func set(_ name: String, _ value: StatsValue) {
        merge([StatsField(name, value)])
    }

    /// Sets (or adds) every field of `changes`, in one step.
    public mutating func merge(_ changes: [StatsField]) {
        guard !changes.isEmpty else { return }
        var fields = storage.fields
        var known = storage.knownFields
        for change in changes {
            if let index = fields.firstIndex(where: { $0.name == change.name }) {
                fields[index].value = change.value
            } else {
                if let field = KnownField(name: change.name) { known.record(field, at: fields.count) }
                fields.append(change)
            }
        }
        replace(fields: fields, knownFields: known)
    }

    public static func == (lhs: StatsEntry, rhs: StatsEntry) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.id == rhs.id && lhs.type == rhs.type && lhs.timestamp == rhs.timestamp && lhs.fields == rhs.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(type)
        hasher.combine(timestamp)
        hasher.combine(fields)
    }
}
