@testable import RTCStats
import Testing

/// `StatsEntry.fromDelta` (a new rtcstats entry built from the parser's known names) against
/// the public initializer that looks every name up, on the same fields.
@Suite struct StatsEntryFromDeltaTests {
    private func deltaFields(_ fields: [StatsField]) -> [StatsDelta.Field] {
        fields.map { StatsDelta.Field(name: $0.name, known: KnownField(name: $0.name), value: $0.value) }
    }

    @Test(arguments: [
        // id, type and timestamp taken out; the rest kept in order.
        [StatsField("id", .string("IT01V1")), StatsField("type", .string("inbound-rtp")), StatsField("timestamp", .number(5)),
         StatsField("kind", .string("video")), StatsField("bytesReceived", .number(1200)), StatsField("unknownThing", .bool(true))],
        // timestamp 0 → the line's time; no type → inferred from the id's legacy prefix.
        [StatsField("id", .string("RTCInboundRTPVideoStream_1")), StatsField("timestamp", .number(0)), StatsField("packetsLost", .number(3))],
        // no id (the dump's key is used), no timestamp.
        [StatsField("bytesReceived", .number(7)), StatsField("bytesReceived", .number(8))],
    ])
    func matchesTheGeneralInitializer(_ fields: [StatsField]) throws {
        let general = try StatsEntry(fields: fields, fallbackID: "key", defaultTimestamp: 42)
        let made = try #require(StatsEntry.fromDelta(deltaFields(fields)[...], fallbackID: "key", defaultTimestamp: 42))
        #expect(made.entry == general)
        #expect(made.entry.id == general.id && made.entry.type == general.type && made.entry.timestamp == general.timestamp)
        #expect(made.known == general.fields.map { KnownField(name: $0.name) })
        for known in KnownField.allCases where known != .id && known != .type && known != .timestamp {
            #expect(made.entry.knownValue(known) == general.knownValue(known))
        }
    }

    @Test func leavesAnUnexpectedIDTypeOrTimestampToTheGeneralInitializer() {
        for odd in [StatsField("id", .number(1)), StatsField("type", .null), StatsField("timestamp", .string("soon"))] {
            let fields = deltaFields([StatsField("bytesReceived", .number(1)), odd])
            #expect(StatsEntry.fromDelta(fields[...], fallbackID: "key", defaultTimestamp: 1) == nil)
        }
    }
}
