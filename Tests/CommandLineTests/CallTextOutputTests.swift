@testable import callscope
import CallScopeCore
import Foundation
@testable import Observability
import Testing

/// `callscope call --format text`: each stats callback with its values, as `replay` prints them,
/// and at the end the call's span, the summary per stream and the timeline. Every expected line
/// is worked out by hand from the values fed in (unix ms 1_800_000_000_000 is 08:00:00.000 UTC:
/// 1_800_000_000 s = 20_833 days + 28_800 s).
@Suite struct CallTextOutputTests {
    static let start = 1_800_000_000_000.0

    /// Collects what the printer writes.
    final class Output: Sendable {
        let text = Locked("")
        func append(_ line: String) { text.withLock { $0 += line } }
    }

    static func subscriberVideo(at time: Double) -> StatsCallback {
        let stats = SubscriberVideoNetworkStats(
            videoPacketsLost: 3, videoPacketsReceived: 80, videoBytesReceived: 64_000, timestamp: time, startTime: start, senderStats: nil,
            width: 640, height: 360, decodedFrameRate: 29.6, bitrate: 512_300, totalBitrate: 1_250_000,
            pauseCount: 0, totalPausesDuration: 0, freezeCount: 1, totalFreezesDuration: 250.4, codec: "VP8")
        return StatsCallback(time: time, endpoint: "bob", peerConnection: "pc-1", event: .subscriberVideoNetworkStatsUpdated(stats))
    }

    static func subscriberLink(at time: Double, condition: NetworkCondition, source: NetworkDegradationSource) -> SubscriberMediaLinkStats {
        SubscriberMediaLinkStats(
            transport: TransportStats(connectionEstimatedBandwidth: 2_400_000, networkCondition: condition, networkConditionReason: condition.isDegraded ? .packetLoss : .none),
            remotePublisherTransport: TransportStats(connectionEstimatedBandwidth: 900_000, networkCondition: .good, networkConditionReason: .none),
            networkDegradationSource: source)
    }

    static func publisherVideo(at time: Double) -> StatsCallback {
        let layers = [
            PublisherVideoLayerStats(width: 480, height: 270, encodedFrameRate: 15, bitrate: 300_000, totalBitrate: 320_000, qualityLimitationReason: .bandwidth, codec: "VP8", rid: "h"),
            PublisherVideoLayerStats(width: 240, height: 135, encodedFrameRate: 15, bitrate: 100_000, totalBitrate: 110_000, codec: "VP8", rid: "q"),
        ]
        let stats = PublisherVideoNetworkStats(connectionId: "", subscriberId: "", videoPacketsLost: 7, videoPacketsSent: 900, videoBytesSent: 900_000,
                                               videoFrameRate: 15, timestamp: time, startTime: start, videoLayers: layers, transport: .unknown)
        return StatsCallback(time: time, endpoint: "alice", peerConnection: "pub-1", event: .publisherVideoNetworkStatsUpdated([stats]))
    }

    @Test func aLiveCallPrintsEachCallbacksValuesThenTheSummaryAndTimeline() async {
        let output = Output()
        let printer = CallEventPrinter(format: .text, start: Self.start, output: { output.append($0) })
        let warning = Self.subscriberLink(at: Self.start + 2000, condition: .warning, source: .local)
        printer.stats(Self.subscriberVideo(at: Self.start + 1000), stream: "4242")
        printer.stats(Self.publisherVideo(at: Self.start + 1500), stream: "")
        printer.stats(StatsCallback(time: Self.start + 2000, endpoint: "bob", peerConnection: "pc-1", event: .subscriberMediaLinkStatsUpdated(warning)), stream: "4242")
        printer.stats(StatsCallback(time: Self.start + 2000, endpoint: "bob", peerConnection: "pc-1", event: .subscriberNetworkConditionChanged(warning, .packetLoss)), stream: "4242")
        printer.stats(StatsCallback(time: Self.start + 3000, endpoint: "bob", peerConnection: "pc-1", event: .subscriberMediaLinkStatsUpdated(warning)), stream: "4242")
        let fine = Self.subscriberLink(at: Self.start + 5000, condition: .good, source: .none)
        printer.stats(StatsCallback(time: Self.start + 5000, endpoint: "bob", peerConnection: "pc-1", event: .subscriberMediaLinkStatsUpdated(fine)), stream: "4242")
        await printer.finish(at: Self.start + 6000)
        #expect(output.text.withLock { $0 } == """
            08:00:01.000 bob/pc-1 [4242] video VP8: 640x360@30 512 kbps (1.25 Mbps w/ RTP); received 64000 B, lost 3, freezes 1 (250 ms), pauses 0 (0 ms)
            08:00:01.500 alice/pub-1 video VP8: h 480x270@15 300 kbps (320 kbps w/ RTP) limited:bandwidth | q 240x135@15 100 kbps (110 kbps w/ RTP); sent 900000 B, lost 7
            08:00:02.000 bob/pc-1 [4242] downlink: estimate 2.40 Mbps, warning (packetLoss); remote uplink good; degradation source: local
            08:00:02.000 ▶ bob/pc-1 [4242] networkConditionChanged: downlink warning, remote uplink good, source local (packetLoss)
            08:00:03.000 bob/pc-1 [4242] downlink: estimate 2.40 Mbps, warning (packetLoss); remote uplink good; degradation source: local
            08:00:05.000 bob/pc-1 [4242] downlink: estimate 2.40 Mbps, good; remote uplink good; degradation source: none

            Call: 08:00:00.000–08:00:06.000 (00:06); the timeline counts from its start

            Summary
              bob receiving video [4242]: 1 samples, mean 512 kbps, peak 512 kbps; received 64000 B, 3 lost, 1 freezes (250 ms), 0 pauses (0 ms), last 640x360 VP8
              alice sending video: 1 samples, mean 400 kbps, peak 400 kbps; sent 900000 B in 900 packets, 7 lost, 2 layer(s) at the end

            Timeline
              00:02–00:04 bob (subscriber of 4242): your downlink degraded (packetLoss); remote publisher uplink fine

            """)
    }

    /// The machine interface does not change: a stats line is the replay's line (the stream
    /// filled in), and the end adds nothing.
    @Test func ndjsonStaysTheReplayLineAndEndsWithNothing() async {
        let output = Output()
        let printer = CallEventPrinter(format: .ndjson, start: Self.start, output: { output.append($0) })
        printer.stats(Self.subscriberVideo(at: Self.start + 1000), stream: "4242")
        await printer.finish(at: Self.start + 6000)
        var expected = Self.subscriberVideo(at: Self.start + 1000)
        expected.stream = "4242"
        #expect(output.text.withLock { $0 } == expected.ndjsonLine + "\n")
        #expect(output.text.withLock { $0 }.hasPrefix(#"{"t":1800000001000,"peer":"bob","pc":"pc-1","stream":"4242","callback":"subscriber.videoNetworkStatsUpdated""#))
    }
}
