import CallScopeTestSupport
import RTCStats
import Testing

@Suite struct WebRTCInternalsReaderTests {
    /// Chrome ≥ 11x: series carry `statsType`, and a `-timestamp` series gives exact times.
    @Test func theNewLayoutRebuildsOneReportPerTimestamp() throws {
        let text = #"""
        {"getUserMedia":[],"PeerConnections":{"123-1":{"pcConfiguration":"{}","updateLog":[],"stats":{
          "OT01V1-timestamp":{"startTime":"2024-05-01T10:00:00.000Z","endTime":"2024-05-01T10:00:02.000Z","statsType":"outbound-rtp","values":"[1714557600000,1714557601000,1714557602000]"},
          "OT01V1-bytesSent":{"startTime":"2024-05-01T10:00:00.000Z","endTime":"2024-05-01T10:00:02.000Z","statsType":"outbound-rtp","values":"[0,125000,250000]"},
          "OT01V1-kind":{"startTime":"2024-05-01T10:00:00.000Z","endTime":"2024-05-01T10:00:02.000Z","statsType":"outbound-rtp","values":"[\"video\",\"video\",\"video\"]"},
          "OT01V1-[bytesSent_in_bits/s]":{"startTime":"2024-05-01T10:00:01.000Z","endTime":"2024-05-01T10:00:02.000Z","statsType":"outbound-rtp","values":"[1000000,1000000]"}
        }}},"UserAgent":"Mozilla/5.0 Chrome/156"}
        """#
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.format == .webrtcInternals)
        let samples = timeline.samples
        #expect(samples.map(\.time) == [1714557600000, 1714557601000, 1714557602000])
        let entry = try #require(samples[1].report["OT01V1"])
        #expect(entry.type == .outboundRTP)
        #expect(entry.bytesSent == 125000)
        #expect(entry.kind == "video")
        #expect(entry.number("[bytesSent_in_bits/s]") == 1_000_000, "a shorter series aligns from its newest value")
        #expect(samples[0].report["OT01V1"]?.number("[bytesSent_in_bits/s]") == nil)
        #expect(samples[0].peerConnection == "123-1")
    }

    /// Older Chrome: no `statsType`, no timestamp series; times are spread over start…end and the
    /// type comes from the id.
    @Test func theOldLayoutInfersTypesAndTimes() throws {
        let text = #"""
        {"PeerConnections":{"9-1":{"stats":{
          "RTCOutboundRTPVideoStream_42-bytesSent":{"startTime":"2020-01-01T00:00:00.000Z","endTime":"2020-01-01T00:00:04.000Z","values":"[0,100,200,300,400]"},
          "RTCOutboundRTPVideoStream_42-kind":{"startTime":"2020-01-01T00:00:00.000Z","endTime":"2020-01-01T00:00:04.000Z","values":"[\"video\",\"video\",\"video\",\"video\",\"video\"]"}
        }}}}
        """#
        let timeline = try StatsTimeline.read(Array(text.utf8))
        let samples = timeline.samples
        #expect(samples.count == 5)
        #expect(samples.map(\.time) == [1577836800000, 1577836801000, 1577836802000, 1577836803000, 1577836804000])
        #expect(samples[3].report["RTCOutboundRTPVideoStream_42"]?.type == .outboundRTP)
        #expect(samples[3].report["RTCOutboundRTPVideoStream_42"]?.bytesSent == 300)
    }

    @Test func aSeriesWithBadValuesIsReportedNotFatal() throws {
        let text = #"{"PeerConnections":{"1-1":{"stats":{"X-bytesSent":{"startTime":0,"endTime":1,"values":"[1,"}}},"2-1":{"stats":{"T-timestamp":{"values":"[5]"},"T-x":{"values":"[1]","statsType":"transport"}}}}}"#
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.problems.count == 1)
        #expect(timeline.samples.count == 1)
    }
}
