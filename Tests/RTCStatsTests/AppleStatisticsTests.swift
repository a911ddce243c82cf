import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// `StatsReport(appleStatistics:)` on what the Objective-C bridge hands over for an
/// `RTCStatisticsReport` (libwebrtc's `RTCStatistics.values`: `NSNumber` made with
/// `numberWithBool:` / `numberWithInt:` / `numberWithUnsignedLongLong:` / `numberWithDouble:`,
/// `NSString`, `NSArray`, `NSDictionary`), built here from real Chromium reports and checked
/// against our JSON reader on the same report (an independent path: no Foundation involved).
@Suite struct AppleStatisticsTests {
    /// The real reports: a Chromium 156 subscriber (`Tests/CallsTests/Fixtures`, captured on the
    /// rig) and a Chrome publisher with a `qualityLimitationDurations` map (dolbyio).
    static func report(_ index: Int) throws -> [UInt8] {
        if index == 0 {
            let callsTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("CallsTests").appendingPathComponent("AnyTest.swift").path
            return try Synthetic.fixture("chromium-loopback-1.json", testFile: callsTests)
        }
        return try Synthetic.fixture("dolbyio-first.json")
    }

    @Test(arguments: [0, 1])
    func aRealReportAsTheBridgeGivesItConvertsToTheSameEntriesAsItsJSON(_ index: Int) throws {
        let bytes = try Self.report(index)
        let fromJSON = try StatsReport(json: bytes)
        // libwebrtc gives every entry an id, a type and a timestamp; dolbyio's app-added
        // "Scores" entry has no timestamp, so it is not something the bridge can hand over.
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]])
            .filter { $0["id"] is String && $0["type"] is String && $0["timestamp"] is NSNumber }
        let expected = StatsReport(entries: fromJSON.entries.filter { entry in objects.contains { $0["id"] as? String == entry.id } })
        #expect(expected.count >= 14)
        let statistics = objects.map { object in
            let values = object.filter { !["id", "type", "timestamp"].contains($0.key) }.mapValues(Self.bridged)
            // libwebrtc's timestamp_us is whole microseconds.
            return (id: object["id"] as! String, type: object["type"] as! String,
                    timestampMicroseconds: ((object["timestamp"] as! NSNumber).doubleValue * 1000).rounded(), values: values)
        }
        let report = StatsReport(appleStatistics: statistics)

        #expect(report.count == expected.count)
        #expect(report.entries.map(\.id) == expected.entries.map(\.id).sorted())
        var booleans = 0, zeroOrOneCounters = 0
        for want in expected.entries {
            let got = try #require(report[want.id])
            #expect(got.type == want.type)
            #expect(abs(got.timestamp - want.timestamp) < 0.001, "\(want.id): \(got.timestamp) vs \(want.timestamp)")
            let gotFields = Self.byName(got.fields), wantFields = Self.byName(want.fields)
            #expect(gotFields.keys.sorted() == wantFields.keys.sorted(), "\(want.id)")
            for (name, value) in wantFields {
                #expect(Self.same(gotFields[name], value), "\(want.id).\(name): \(String(describing: gotFields[name])) vs \(value)")
            }
            for field in want.fields {
                if case .bool = field.value { booleans += 1 }
                if case .number(let number) = field.value, number == 0 || number == 1 { zeroOrOneCounters += 1 }
            }
        }
        // The hazards were really there: NSNumber Booleans, and 0/1 counters that must stay numbers.
        #expect(booleans > 0)
        #expect(zeroOrOneCounters > 0)
    }

    @Test func booleansAreBooleansAndZeroOrOneCountersStayNumbers() {
        let report = StatsReport(appleStatistics: [
            (id: "CP1", type: "candidate-pair", timestampMicroseconds: 1_796_122_490_018_817,
             values: ["nominated": NSNumber(value: true), "writable": NSNumber(value: false),
                      "requestsSent": NSNumber(value: UInt64(1)), "packetsDiscardedOnSend": NSNumber(value: UInt32(0)),
                      "currentRoundTripTime": NSNumber(value: 0.001), "state": NSString(string: "succeeded")]),
        ])
        let entry = report["CP1"]
        #expect(entry?.timestamp == 1_796_122_490_018.817)
        #expect(entry?["nominated"] == .bool(true))
        #expect(entry?["writable"] == .bool(false))
        #expect(entry?["requestsSent"] == .number(1))
        #expect(entry?["packetsDiscardedOnSend"] == .number(0))
        #expect(entry?["currentRoundTripTime"] == .number(0.001))
        #expect(entry?["state"] == .string("succeeded"))
    }

    @Test func arraysAndMapsKeepTheirValues() {
        let report = StatsReport(appleStatistics: [
            (id: "OT1", type: "outbound-rtp", timestampMicroseconds: 5_000,
             values: ["qualityLimitationDurations": NSDictionary(dictionary: ["bandwidth": NSNumber(value: 1.961), "none": NSNumber(value: 0)]),
                      "ssrcs": NSArray(array: [NSNumber(value: UInt32(1)), NSNumber(value: UInt32(2))]),
                      "rids": NSArray(array: [NSString(string: "f"), NSString(string: "h")])]),
        ])
        let entry = report["OT1"]
        #expect(entry?.timestamp == 5)
        #expect(entry?["qualityLimitationDurations"] == .object([StatsField("bandwidth", .number(1.961)), StatsField("none", .number(0))]))
        #expect(entry?["ssrcs"] == .array([.number(1), .number(2)]))
        #expect(entry?["rids"] == .array([.string("f"), .string("h")]))
    }

    @Test func aRepeatedIdKeepsTheLaterEntryAndNothingIsLost() {
        let report = StatsReport(appleStatistics: [
            (id: "A", type: "codec", timestampMicroseconds: 1_000, values: ["mimeType": "video/VP8"]),
            (id: "B", type: "transport", timestampMicroseconds: 1_000, values: [:]),
            (id: "A", type: "codec", timestampMicroseconds: 2_000, values: ["mimeType": "video/VP9"]),
        ])
        #expect(report.entries.map(\.id) == ["A", "B"])
        #expect(report["A"]?.mimeType == "video/VP9")
        #expect(report["B"]?.fields.isEmpty == true)
    }

    // MARK: - The bridge, by hand

    /// What `RTCStatistics.values` holds for a JSON value: libwebrtc makes Booleans with
    /// `numberWithBool:`, integer members with the integer constructors, doubles with
    /// `numberWithDouble:` (our JSON reader turns them all into Doubles, so any integer kind will do).
    static func bridged(_ value: Any) -> Any {
        switch value {
        case let number as NSNumber:
            if String(cString: number.objCType) == "c", ObjectIdentifier(type(of: number)) == ObjectIdentifier(type(of: NSNumber(value: true))) {
                return NSNumber(value: number.boolValue)
            }
            let double = number.doubleValue
            if double == double.rounded(), double >= 0, double < 9_007_199_254_740_992 { return NSNumber(value: UInt64(double)) }
            return NSNumber(value: double)
        case let string as String: return NSString(string: string)
        case let array as [Any]: return NSArray(array: array.map(bridged))
        case let object as [String: Any]: return NSDictionary(dictionary: object.mapValues(bridged))
        default: return value
        }
    }

    /// Equal, numbers to 1e-15 relative: Foundation's JSONSerialization (the oracle's reader)
    /// is one ulp off on some doubles (0.14654399999999998 read as …92).
    static func same(_ lhs: JSONValue?, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a)?, .number(let b)): return a == b || abs(a - b) <= 1e-15 * max(abs(a), abs(b))
        case (.array(let a)?, .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a)?, .object(let b)):
            let x = byName(a), y = byName(b)
            return x.keys.sorted() == y.keys.sorted() && y.allSatisfy { same(x[$0.key], $0.value) }
        default: return lhs == rhs
        }
    }

    static func byName(_ fields: [StatsField]) -> [String: JSONValue] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
