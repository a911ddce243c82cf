import Foundation
@testable import RTCStats
import Testing

/// The webrtc-internals fast paths (string series, byte-level key split) against the general
/// parser and against values written by hand.
@Suite struct SeriesFastPathTests {
    @Test func stringArraysReadAsTheGeneralParserReadsThem() throws {
        let texts = [
            #"["audio","audio","video"]"#,
            #"[]"#,
            #" [ "a" , "b" ] "#,
            #"["CIT01_111_minptime=10;useinbandfec=1","CIT01_111_minptime=10;useinbandfec=1"]"#,
            #"["é✓","é✓","ü"]"#,
            #"["","",""]"#,
        ]
        for text in texts {
            let fast = try #require(JSONParser.parseStringArray(text))
            guard case .array(let general) = try JSONParser.parse(text) else {
                Issue.record("not an array: \(text)")
                continue
            }
            #expect(fast == general, "\(text)")
        }
        #expect(JSONParser.parseStringArray(#"["audio","audio","video"]"#) == [.string("audio"), .string("audio"), .string("video")])
        #expect(JSONParser.parseStringArray(#"["é✓","é✓","ü"]"#) == [.string("é✓"), .string("é✓"), .string("ü")])
    }

    @Test func anythingElseIsLeftToTheGeneralParser() {
        for text in [#"["a\"b"]"#, #"["a\u0041"]"#, "[\"a\u{01}b\"]", #"["a",1]"#, #"["a"]x"#, #"["a""#, #"["a",]"#, #"["a"  "b"]"#, "", "[", #""a""#, "[1,2]"] {
            #expect(JSONParser.parseStringArray(text) == nil, "\(text)")
        }
    }

    @Test func numberArraysReadAsTheGeneralParserReadsThem() throws {
        for text in ["[1,2.5,-3]", "[]", " [ 0 , 1e3 , -2.5E-3 ] ", "[1795978382333.4,0.0005798516800439467]", "[ ]"] {
            let fast = try #require(JSONParser.parseNumberArray(text), "\(text)")
            guard case .array(let general) = try JSONParser.parse(text) else {
                Issue.record("not an array: \(text)")
                continue
            }
            #expect(fast.map(JSONValue.number) == general, "\(text)")
        }
        #expect(JSONParser.parseNumberArray("[1,2.5,-3]") == [1, 2.5, -3])
        for text in ["[1,\"a\"]", "[1,]", "[1 2]", "[01]", "[1]x", "[1", "", "[-]", "[null]", "[\"a\"]"] {
            #expect(JSONParser.parseNumberArray(text) == nil, "\(text)")
        }
    }

    @Test func seriesKeysSplitAtTheLastDashOrAtTheBracket() throws {
        let cases: [(String, String, String)] = [
            ("IT01V2-jitter", "IT01V2", "jitter"),
            ("RTCInboundRTPVideoStream_1-2-bytesReceived", "RTCInboundRTPVideoStream_1-2", "bytesReceived"),
            ("IT01V1-[framesReceived-framesDecoded-framesDropped]", "IT01V1", "[framesReceived-framesDecoded-framesDropped]"),
            ("OT01V-[bytesSent_in_bits/s]", "OT01V", "[bytesSent_in_bits/s]"),
            ("é-ü-x", "é-ü", "x"),
            ("-x", "", "x"),
            ("x-", "x", ""),
        ]
        for (key, id, field) in cases {
            let split = try #require(WebRTCInternalsReader.splitSeriesKey(key))
            #expect(split.id == id && split.field == field, "\(key)")
        }
        #expect(WebRTCInternalsReader.splitSeriesKey("a]") == nil)
        #expect(WebRTCInternalsReader.splitSeriesKey("nodash") == nil)
        // A bracket with no "-[" before it: the last dash.
        let split = try #require(WebRTCInternalsReader.splitSeriesKey("a-b]"))
        #expect(split.id == "a" && split.field == "b]")
    }
}
