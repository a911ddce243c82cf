@testable import callscope
import CallScopeTestSupport
import Foundation
import RTCStats
@testable import Observability
import Testing

/// The report collapses receive streams that never carried media into one line instead of
/// three empty bands each.
@Suite struct ReportIdleStreamsTests {
    static func video(_ stream: StreamID, at time: Double, packets: UInt64) -> StatsCallback {
        let stats = SubscriberVideoNetworkStats(
            videoPacketsLost: 0, videoPacketsReceived: packets, videoBytesReceived: packets * 1000, timestamp: time, startTime: 0, senderStats: nil,
            width: 640, height: 360, decodedFrameRate: packets > 0 ? 30 : 0, bitrate: packets > 0 ? 500_000 : 0, totalBitrate: packets > 0 ? 520_000 : 0,
            pauseCount: 0, totalPausesDuration: 0, freezeCount: 0, totalFreezesDuration: 0, codec: "VP8")
        return StatsCallback(time: time, endpoint: "bob", peerConnection: "pc-1", stream: stream, event: .subscriberVideoNetworkStatsUpdated(stats))
    }

    static func link(_ stream: StreamID, at time: Double, condition: NetworkCondition) -> StatsCallback {
        let stats = SubscriberMediaLinkStats(transport: TransportStats(networkCondition: condition), remotePublisherTransport: TransportStats(),
                                             networkDegradationSource: .none)
        return StatsCallback(time: time, endpoint: "bob", peerConnection: "pc-1", stream: stream, event: .subscriberMediaLinkStatsUpdated(stats))
    }

    /// Two streams on one connection: "cam" receives packets, "mid:5" never does.
    @Test func aStreamWithoutMediaIsOneLineNotThreeBands() {
        var callbacks: [StatsCallback] = []
        for second in 1...3 {
            let time = Double(second) * 1000
            callbacks += [Self.video("cam", at: time, packets: UInt64(second) * 90), Self.link("cam", at: time, condition: .good),
                          Self.video("mid:5", at: time, packets: 0), Self.link("mid:5", at: time, condition: .unknown)]
        }
        let report = CallReport(ReplayedCall(file: "two.ndjson", byteCount: 0, timeline: StatsTimeline(format: .recording, items: []), callbacks: callbacks))
        #expect(report.idleLine == "1 receive stream carried no media")
        #expect(report.idleStreams.map(\.label) == ["bob [mid:5]"])
        #expect(report.bands.map(\.label) == ["bob [cam] downlink", "bob [cam] remote publisher uplink", "bob [cam] degradation source"])
        #expect(report.streams.map(\.stream) == ["cam"])
        let bitrate = report.charts.first { $0.id == "bitrate" }?.series.map(\.name)
        #expect(bitrate == ["bob [cam] ↓", "bob [cam] ↓ +RTP"])
        #expect(report.jsonData().contains(#""idle":{"line":"1 receive stream carried no media","streams":["bob [mid:5]"]}"#))
    }

    /// Every stream carried media: no line.
    @Test func noLineWhenEveryStreamCarriedMedia() {
        let callbacks = [Self.video("cam", at: 1000, packets: 90), Self.link("cam", at: 1000, condition: .good)]
        let report = CallReport(ReplayedCall(file: "one.ndjson", byteCount: 0, timeline: StatsTimeline(format: .recording, items: []), callbacks: callbacks))
        #expect(report.idleLine == nil)
        #expect(report.bands.count == 3)
        #expect(report.jsonData().contains(#""idle":{"line":"","streams":[]}"#))
    }

    /// A real capture (Jitsi, Chrome 99, rtcstats; shipped as a reader fixture). Counted apart
    /// from the engine, with Python over the dump's own `stream` entries (the remote tracks of
    /// each, and the highest `packetsReceived` of their inbound-rtp entries): five receive
    /// streams, of which 05e5393b-video-1 (1276 packets) and 1d8a8014-video-1 (1277) carried
    /// media and 05e5393b-audio-1, 1d8a8014-audio-1 and mixedmslabel (audio and video) none.
    @Test func aRealSFUCaptureCollapsesItsThreeSilentStreams() throws {
        let file = Synthetic.repositoryRoot().appendingPathComponent("Tests/RTCStatsTests/Fixtures/chrome-standard-pc-reconnect.rtcstats").path
        let report = CallReport(try replayCallbacks(file: file))
        #expect(report.idleLine == "3 receive streams carried no media")
        #expect(Set(report.idleStreams.map(\.stream)) == ["05e5393b-audio-1", "1d8a8014-audio-1", "mixedmslabel"])
        let received = Set(report.streams.filter { $0.direction == .receiving }.map(\.stream))
        #expect(received == ["05e5393b-video-1", "1d8a8014-video-1"])
        for band in report.bands {
            #expect(!["05e5393b-audio-1", "1d8a8014-audio-1", "mixedmslabel"].contains { band.label.contains("[\($0)]") }, "\(band.label)")
        }
        #expect(report.bands.filter { $0.label.hasSuffix(" degradation source") }.count == 2)
    }
}
