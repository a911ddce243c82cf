import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// The dump reader on the real subscriber dump in `Recordings/` (Chromium, new layout),
/// checked against an independent reading with `JSONSerialization`.
@Suite struct ChromeDumpKeyTests {
    static func recording(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Synthetic.repositoryRoot().appendingPathComponent("Recordings/\(name)")))
    }

    /// The dump's own poll times: the distinct ms of every `-timestamp` series of a local entry.
    static func independentPollCount(_ gzipped: [UInt8]) throws -> Int {
        let plain = try Gzip.decompress(gzipped)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
        let connections = try #require(document["PeerConnections"] as? [String: [String: Any]])
        var polls = Set<Int64>()
        for connection in connections.values {
            for (key, series) in connection["stats"] as? [String: [String: Any]] ?? [:] where key.hasSuffix("-timestamp") {
                if (series["statsType"] as? String)?.hasPrefix("remote-") == true { continue }
                let values = try #require(try JSONSerialization.jsonObject(with: Data((series["values"] as? String ?? "[]").utf8)) as? [Double])
                for value in values { polls.insert(Int64(value.rounded())) }
            }
        }
        return polls.count
    }

    /// `IT…-[framesReceived-framesDecoded-framesDropped]` is one field of entry `IT…`, not a
    /// phantom entry `IT…-[framesReceived-framesDecoded` whose spread-out times add polls.
    @Test func aBracketedSeriesIsAFieldOfItsEntry() throws {
        let bytes = try Self.recording("webrtc-internals-subscriber.json.gz")
        let timeline = try StatsTimeline.read(bytes)
        let ids = Set(timeline.samples.flatMap { $0.report.entries.map(\.id) })
        #expect(!ids.contains { $0.contains("-[") }, "phantom entries: \(ids.filter { $0.contains("-[") })")
        #expect(timeline.samples.count == (try Self.independentPollCount(bytes)))
        let last = try #require(timeline.samples.last?.report["IT01V2967248272"])
        #expect(last["[framesReceived-framesDecoded-framesDropped]"]?.number != nil)
    }

    @Test(arguments: [
        ("IT01V1-[framesReceived-framesDecoded-framesDropped]", "IT01V1", "[framesReceived-framesDecoded-framesDropped]"),
        ("OT01V1-[bytesSent_in_bits/s]", "OT01V1", "[bytesSent_in_bits/s]"),
        ("RTCOutboundRTPVideoStream_42-bytesSent", "RTCOutboundRTPVideoStream_42", "bytesSent"),
        ("ssrc_1-2_send-googRtt", "ssrc_1-2_send", "googRtt"),
    ])
    func seriesKeysSplitWhereTheFieldStarts(key: String, id: String, field: String) throws {
        let text = #"{"PeerConnections":{"1-1":{"stats":{"\#(key)":{"startTime":0,"endTime":0,"statsType":"inbound-rtp","values":"[5]"}}}}}"#
        let timeline = try StatsTimeline.read(Array(text.utf8))
        let entry = try #require(timeline.samples.first?.report.entries.first)
        #expect(entry.id == id)
        #expect(entry.fields.map(\.name) == [field])
    }

    /// Chrome writes mid "1" as the number 1; the real dump's video stream has mid 1.
    @Test func numericMidsAreRead() throws {
        let timeline = try StatsTimeline.read(try Self.recording("webrtc-internals-subscriber.json.gz"))
        let video = try #require(timeline.samples.last?.report["IT01V2967248272"])
        #expect(video["mid"] == .number(1), "the dump writes the mid as a number")
        #expect(video.mid == "1")
        #expect(timeline.samples.last?.report["IT01A3647505559"]?.mid == "0")
    }

    /// MS Teams' simulcast rids 1/2/3 arrive as numbers in webrtc-internals dumps.
    @Test func numericRidsAreRead() throws {
        let text = #"""
        {"PeerConnections":{"1-1":{"stats":{
          "OT01V1-timestamp":{"statsType":"outbound-rtp","values":"[1000,2000]"},
          "OT01V1-rid":{"statsType":"outbound-rtp","values":"[1,1]"},
          "OT01V2-timestamp":{"statsType":"outbound-rtp","values":"[1000,2000]"},
          "OT01V2-rid":{"statsType":"outbound-rtp","values":"[\"q\",\"q\"]"},
          "OT01V3-timestamp":{"statsType":"outbound-rtp","values":"[1000,2000]"},
          "OT01V3-rid":{"statsType":"outbound-rtp","values":"[2.5,2.5]"}
        }}}}
        """#
        let report = try #require(try StatsTimeline.read(Array(text.utf8)).samples.last?.report)
        #expect(report["OT01V1"]?.rid == "1")
        #expect(report["OT01V2"]?.rid == "q")
        #expect(report["OT01V3"]?.rid == "2.5")
    }
}
