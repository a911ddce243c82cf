/// One `getstats` delta of an rtcstats dump, flat: its entries in order, each a range of
/// `fields`. The fast path parses a line straight into this shape (no value tree per entry);
/// the general path converts its parsed members into it, so one merge serves both.
struct StatsDelta {
    /// One entry of the delta: its key in the dump (usually the entry's id) and its fields.
    struct Member {
        var key: String
        var fields: Range<Int>
    }

    /// One changed (or first-seen) field, with the ``KnownField`` its name is, if any.
    struct Field {
        var name: String
        var known: KnownField?
        var value: JSONValue
    }

    /// The members whose values are objects, in source order.
    var members: [Member] = []
    var fields: [Field] = []
    /// The value of the delta's first member named `timestamp`, when that is a number: the
    /// time of entries stamped 0.
    var reportTimestamp: Double?
    /// Whether a member named `timestamp` was seen (only the first one counts).
    var sawTimestamp = false

    /// Empties the delta for the next line, keeping its buffers.
    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        reportTimestamp = nil
        sawTimestamp = false
    }

    /// Records a member named `timestamp` (of any value).
    mutating func noteTimestampMember(_ value: JSONValue) {
        guard !sawTimestamp else { return }
        sawTimestamp = true
        reportTimestamp = value.number
    }

    /// Appends the members of a parsed delta object (the general path).
    mutating func append(_ delta: [StatsField]) {
        for member in delta {
            if member.name == "timestamp" { noteTimestampMember(member.value) }
            guard case .object(let entryFields) = member.value else { continue }
            let first = fields.count
            for field in entryFields { fields.append(Field(name: field.name, known: KnownField(name: field.name), value: field.value)) }
            members.append(Member(key: member.name, fields: first..<fields.count))
        }
    }

    /// The fields of `member` as the entry initializer takes them.
    func statsFields(of member: Member) -> [StatsField] {
        fields[member.fields].map { StatsField($0.name, $0.value) }
    }
}
