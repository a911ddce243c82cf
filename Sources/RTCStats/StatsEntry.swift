/// One entry of an `RTCStatsReport`: its `id`, `type`, `timestamp` and every other field, raw.
///
/// Typed accessors (``value(_:)``, and the named properties in `StatsEntry+Fields.swift`) read
/// the fields the engine uses; everything else stays available through ``fields`` and
/// ``subscript(_:)``.
///
/// A value type over one shared, immutable storage object: copying an entry (the engine sorts
/// and groups them every report) costs one reference count. Entries read by the JSON parser
/// keep the bytes of their object and decode only the ``KnownField``s up front; the other
/// fields are decoded from those bytes when someone asks (the parser has validated them), so
/// nothing is lost and nothing is paid for fields the engine never reads.
public struct StatsEntry: Sendable, Hashable {
    /// The shared, immutable contents.
    final class Storage: Sendable {
        let id: String
        let type: StatsType
        let typeCode: UInt8
        let timestamp: Double
        /// The values of the known fields present, indexed by `knownFields`.
        let knownValues: [JSONValue]
        let knownFields: KnownFieldIndex
        let body: Body

        enum Body: Sendable {
            /// Every field but id/type/timestamp, decoded.
            case decoded([StatsField])
            /// The entry's JSON object, `{` to `}`, validated by the parser.
            case raw(JSONDocument, Range<Int>)
        }

        init(id: String, type: StatsType, timestamp: Double, knownValues: [JSONValue], knownFields: KnownFieldIndex, body: Body) {
            self.id = id
            self.type = type
            self.typeCode = type.code
            self.timestamp = timestamp
            self.knownValues = knownValues
            self.knownFields = knownFields
            self.body = body
        }
    }

    private var storage: Storage

    /// The stats object id, unique within one report.
    public var id: String {
        get { storage.id }
        set { self = StatsEntry(id: newValue, type: type, timestamp: timestamp, fields: fields) }
    }

    /// The W3C type.
    public var type: StatsType {
        get { storage.type }
        set { self = StatsEntry(id: id, type: newValue, timestamp: timestamp, fields: fields) }
    }

    /// The type, when this version knows it (one byte, no string involved).
    public var knownType: StatsType.Known? { StatsType.Known(rawValue: storage.typeCode) }

    /// Milliseconds since the Unix epoch (W3C `DOMHighResTimeStamp`).
    public var timestamp: Double {
        get { storage.timestamp }
        set { self = StatsEntry(id: id, type: type, timestamp: newValue, fields: fields) }
    }

    /// Every field except `id`, `type` and `timestamp`, in source order.
    public var fields: [StatsField] {
        switch storage.body {
        case .decoded(let fields): return fields
        case .raw(let document, let range): return StatsEntry.decodeFields(document, range)
        }
    }

    /// Creates an entry.
    public init(id: String, type: StatsType, timestamp: Double, fields: [StatsField]) {
        var index = KnownFieldIndex()
        var values: [JSONValue] = []
        for field in fields {
            if let known = KnownField(name: field.name), index.position(of: known) == nil {
                index.record(known, at: values.count)
                values.append(field.value)
            }
        }
        storage = Storage(id: id, type: type, timestamp: timestamp, knownValues: values, knownFields: index, body: .decoded(fields))
    }

    /// An entry whose fields' ``KnownField``s are already known (`known[i]` for `fields[i]`), so
    /// no name is looked up: the webrtc-internals reader classifies each series once, not once
    /// per poll.
    init(id: String, type: StatsType, timestamp: Double, fields: [StatsField], known: [KnownField?]) {
        var index = KnownFieldIndex()
        var values: [JSONValue] = []
        for (position, field) in fields.enumerated() {
            if let known = known[position], known != .id, known != .type, known != .timestamp, index.position(of: known) == nil {
                index.record(known, at: values.count)
                values.append(field.value)
            }
        }
        storage = Storage(id: id, type: type, timestamp: timestamp, knownValues: values, knownFields: index, body: .decoded(fields))
    }

    /// An entry read by the parser: its known values, and its object's bytes for the rest.
    init(id: String, type: StatsType, timestamp: Double, knownValues: [JSONValue], knownFields: KnownFieldIndex, document: JSONDocument, range: Range<Int>) {
        storage = Storage(id: id, type: type, timestamp: timestamp, knownValues: knownValues, knownFields: knownFields, body: .raw(document, range))
    }

    /// The same entry with another type and timestamp: its fields, their index and its bytes
    /// are shared, not rebuilt (a delta-compressed dump re-stamps most entries every poll and
    /// changes nothing else in them).
    func restamped(type: StatsType, timestamp: Double) -> StatsEntry {
        var copy = self
        copy.storage = Storage(id: storage.id, type: type, timestamp: timestamp, knownValues: storage.knownValues,
                               knownFields: storage.knownFields, body: storage.body)
        return copy
    }

    /// The raw value of a known field.
    @inlinable package func value(_ field: KnownField) -> JSONValue? {
        knownValue(field)
    }

    @usableFromInline func knownValue(_ field: KnownField) -> JSONValue? {
        guard let position = storage.knownFields.position(of: field) else { return nil }
        return storage.knownValues[position]
    }

    /// The raw value of the field `name`.
    public subscript(name: String) -> JSONValue? {
        if let known = KnownField(name: name), known != .id, known != .type, known != .timestamp { return knownValue(known) }
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// The field `name` as a number; `nil` when absent or not a number.
    public func number(_ name: String) -> Double? { self[name]?.number }

    /// The field `name` as a string; `nil` when absent or not a string.
    public func string(_ name: String) -> String? { self[name]?.string }

    /// The field `name` as a Boolean; `nil` when absent or not a Boolean.
    public func bool(_ name: String) -> Bool? { self[name]?.bool }

    /// Sets (or adds) the field `name`.
    public mutating func set(_ name: String, _ value: JSONValue) {
        merge([StatsField(name, value)])
    }

    /// Sets (or adds) every field of `changes`, in one step.
    public mutating func merge(_ changes: [StatsField]) {
        guard !changes.isEmpty else { return }
        var fields = self.fields
        for change in changes {
            if let index = fields.firstIndex(where: { $0.name == change.name }) {
                fields[index].value = change.value
            } else {
                fields.append(change)
            }
        }
        self = StatsEntry(id: id, type: type, timestamp: timestamp, fields: fields)
    }

    /// Appends the entry as a JSON object: a parsed entry's own bytes, unchanged; otherwise
    /// `id`, `type`, `timestamp` and the fields.
    func writeJSON(to output: inout String) {
        if case .raw(let document, let range) = storage.body {
            output += String(decoding: document.bytes[range], as: UTF8.self)
            return
        }
        output += "{\"id\":"
        JSONWriter.writeString(id, to: &output)
        output += ",\"type\":"
        JSONWriter.writeString(type.rawValue, to: &output)
        output += ",\"timestamp\":"
        JSONWriter.writeNumber(timestamp, to: &output)
        for field in fields {
            output += ","
            JSONWriter.writeString(field.name, to: &output)
            output += ":"
            JSONWriter.write(field.value, to: &output)
        }
        output += "}"
    }

    private static func decodeFields(_ document: JSONDocument, _ range: Range<Int>) -> [StatsField] {
        // The parser validated these bytes when it read the entry.
        guard case .object(let members)? = try? JSONParser.parse(document.bytes[range]) else { return [] }
        return members.filter { member in
            switch member.name {
            case "id": member.value.string == nil
            case "type": member.value.string == nil
            case "timestamp": member.value.number == nil
            default: true
            }
        }
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

/// The bytes of one parsed JSON document, shared by the entries read from it.
final class JSONDocument: Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
