import Foundation
import RTCStats
import CallScopeTestSupport
import Testing

@Suite struct JSONParserTests {
    @Test(arguments: [
        ("0", 0.0), ("-12", -12.0), ("3.25", 3.25), ("1e3", 1000.0), ("-2.5E-3", -0.0025),
        ("1795978382333.4", 1795978382333.4), ("0.1", 0.1), ("123456789012345678", 123456789012345678.0),
        ("0.000001234", 0.000001234),
    ])
    func numbersMatchTheirDecimalValue(text: String, expected: Double) throws {
        #expect(try JSONParser.parse(text) == .number(expected))
    }

    @Test func numbersAgreeWithFoundationOnRandomDecimals() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let integer = Int.random(in: 0...9_999_999_999, using: &generator)
            let fraction = Int.random(in: 0...999_999, using: &generator)
            let text = "\(integer).\(String(format: "%06d", fraction))"
            #expect(try JSONParser.parse(text) == .number(Double(text)!))
        }
    }

    /// Leading zeros do not count against the exact path's digits: long fractions of small
    /// values (audio levels) must still round as `strtod` does.
    @Test func smallValuesWithLongFractionsAgreeWithStrtod() throws {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let zeros = String(repeating: "0", count: Int.random(in: 0...8, using: &generator))
            let digits = (0..<Int.random(in: 1...19, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            let text = (Bool.random(using: &generator) ? "-" : "") + "0." + zeros + digits
            #expect(try JSONParser.parse(text) == .number(strtod(text, nil)), "\(text)")
        }
        #expect(try JSONParser.parse("0.0005798516800439467") == .number(strtod("0.0005798516800439467", nil)))
        #expect(throws: StatsParseError.self) { try JSONParser.parse("00.5") }
        #expect(throws: StatsParseError.self) { try JSONParser.parse("-01") }
        #expect(try JSONParser.parse("0.0") == .number(0))
    }

    @Test func stringsDecodeEscapesAndSurrogates() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\né😀"))
    }

    @Test func objectsKeepMemberOrderAndNesting() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":[true,false,null],"c":{"d":"e"}}"#)
        #expect(value.object?.map(\.name) == ["b", "a", "c"])
        #expect(value["a"] == .array([.bool(true), .bool(false), .null]))
        #expect(value["c"]?["d"] == .string("e"))
    }

    @Test(arguments: [
        ("{\"a\":1", StatsParseError.Code.truncated), ("[1,2", .truncated), ("{\"a\" 1}", .invalidJSON),
        ("[01]", .invalidJSON), ("tru", .truncated), ("[1,]", .invalidJSON), ("\"\u{01}\"", .invalidJSON), ("[1] x", .invalidJSON),
    ])
    func malformedInputThrowsATypedErrorWithAnOffset(text: String, code: StatsParseError.Code) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? StatsParseError else { return false }
            return error.code == code && error.offset != nil
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: StatsParseError.self) { try JSONParser.parse(text) }
    }

    @Test func writerRoundTripsValues() throws {
        let text = #"{"id":"x","n":12,"f":0.5,"s":"q\"","a":[1,null,false]}"#
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }
}
