import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

@Suite struct ReportReaderTests {
    @Test func aGetStatsArrayAndAnIdKeyedObjectGiveTheSameReport() throws {
        let array = #"[{"id":"A","type":"codec","timestamp":5,"mimeType":"video/VP8"},{"id":"B","type":"outbound-rtp","timestamp":5,"bytesSent":1}]"#
        let object = #"{"A":{"type":"codec","timestamp":5,"mimeType":"video/VP8"},"B":{"id":"B","type":"outbound-rtp","timestamp":5,"bytesSent":1}}"#
        let fromArray = try StatsReport(json: Array(array.utf8))
        let fromObject = try StatsReport(json: Array(object.utf8))
        #expect(fromArray == fromObject)
        #expect(fromArray["A"]?.mimeType == "video/VP8")
        #expect(fromArray.entries(ofType: .outboundRTP).count == 1)
    }

    @Test func theSelectedPairIsTheFirstTransportsThatNamesOneInTheReport() throws {
        func selected(_ json: String) throws -> String? { try StatsReport(json: Array(json.utf8)).selectedCandidatePair?.id }
        #expect(try selected(#"[{"id":"T0","type":"transport","timestamp":1},{"id":"T1","type":"transport","timestamp":1,"selectedCandidatePairId":"CP2"},{"id":"CP1","type":"candidate-pair","timestamp":1},{"id":"CP2","type":"candidate-pair","timestamp":1}]"#) == "CP2")
        #expect(try selected(#"[{"id":"T1","type":"transport","timestamp":1,"selectedCandidatePairId":"CP9"},{"id":"CP1","type":"candidate-pair","timestamp":1}]"#) == nil)
        #expect(try selected(#"[{"id":"CP1","type":"candidate-pair","timestamp":1,"nominated":true}]"#) == nil)
    }

    @Test func theApplePathNeedsNoJSONAndConvertsMicroseconds() {
        let report = StatsReport(appleStatistics: [
            "OT1": StatsReport.AppleStatistic(type: "outbound-rtp", timestampUs: 1_700_000_000_123_456, values: ["bytesSent": NSNumber(value: 1200), "rid": "f", "active": true]),
        ])
        let entry = report["OT1"]
        #expect(entry?.timestamp == 1_700_000_000_123.456)
        #expect(entry?.bytesSent == 1200)
        #expect(entry?.rid == "f")
        #expect(entry?.bool("active") == true)
    }

    @Test func thePassThroughReportIsTheSameJSONShape() throws {
        let text = #"[{"id":"A","type":"codec","timestamp":5,"mimeType":"video/VP8","x":[1,{"y":null}]}]"#
        let report = try StatsReport(json: Array(text.utf8))
        #expect(report.jsonArray() == text)
    }

    @Test func aRealChromeGetStatsArrayIsReadWithEveryEntry() throws {
        let bytes = try Synthetic.fixture("dolbyio-first.json")
        let independent = try JSONSerialization.jsonObject(with: Data(bytes)) as! [[String: Any]]
        let timeline = try StatsTimeline.read(bytes)
        #expect(timeline.format == .singleReport)
        let report = try #require(timeline.samples.first?.report)
        #expect(report.count == independent.count)
        // The app-added "Scores" entry has no timestamp: it takes the report's.
        #expect(report["Scores"]?.timestamp == independent.compactMap { $0["timestamp"] as? Double }.max())
        for object in independent {
            let id = object["id"] as! String
            let entry = try #require(report[id])
            #expect(entry.fields.count + 3 == object.count + (object["timestamp"] == nil ? 1 : 0) + (object["type"] == nil ? 1 : 0), "every field of \(id) kept")
        }
    }

    @Test func aSerialisedMapReportIsRead() throws {
        let bytes = try Synthetic.fixture("mypurecloud-mock-spec-stats-1.json")
        let independent = try JSONSerialization.jsonObject(with: Data(bytes)) as! [[String: Any]]
        let report = try #require(try StatsTimeline.read(bytes).samples.first?.report)
        #expect(report.count == independent.count)
        #expect(report.entries(ofType: .outboundRTP).count == independent.filter { ($0["value"] as? [String: Any])?["type"] as? String == "outbound-rtp" }.count)
    }

    @Test(arguments: [("RTCOutboundRTPVideoStream_123", "outbound-rtp"), ("RTCInboundRTPAudioStream_9", "inbound-rtp"),
                      ("RTCIceCandidatePair_a_b", "candidate-pair"), ("RTCRemoteInboundRtpVideoStream_1", "remote-inbound-rtp"),
                      ("RTCTransport_0_1", "transport"), ("RTCCodec_video_Outbound_96", "codec"), ("RTCMediaStreamTrack_sender_1", "track")])
    func legacyIdsImplyTheirType(id: String, type: String) {
        #expect(StatsType(inferredFromID: id)?.rawValue == type)
    }
}
