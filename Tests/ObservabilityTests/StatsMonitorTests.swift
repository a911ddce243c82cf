import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

private final class RecordingDelegate: PublisherNetworkStatsDelegate, @unchecked Sendable {
    // @unchecked: only touched from the test's own task.
    var names: [String] = []
    func publisher(_ monitor: PublisherStatsMonitor, videoNetworkStatsUpdated stats: [PublisherVideoNetworkStats]) { names.append("video") }
    func publisher(_ monitor: PublisherStatsMonitor, audioNetworkStatsUpdated stats: [PublisherAudioNetworkStats]) { names.append("audio") }
    func publisher(_ monitor: PublisherStatsMonitor, mediaLinkStatsUpdated stats: [PublisherMediaLinkStats]) { names.append("mediaLink") }
}

@Suite struct StatsMonitorTests {
    typealias S = Synthetic

    private func report(_ time: Double, bytes: Double) -> StatsReport {
        StatsReport(entries: [
            S.videoLayer("OT1", at: time, rid: nil, width: 640, height: 360, bytesSent: bytes),
            S.entry("OA1", .outboundRTP, at: time, ["kind": "audio", "bytesSent": bytes / 10, "packetsSent": 1]),
        ])
    }

    @Test func delegateAndStreamSeeTheSameCallbacksInTheSameOrder() async throws {
        let monitor = PublisherStatsMonitor()
        let delegate = RecordingDelegate()
        monitor.delegate = delegate
        let stream = monitor.events
        monitor.ingest(report(1000, bytes: 1000), peerConnection: "pc")
        monitor.ingest(report(2000, bytes: 2000), peerConnection: "pc")
        var streamed: [String] = []
        for await callback in stream {
            streamed.append(callback.event.callbackName)
            if streamed.count == 6 { break }
        }
        #expect(delegate.names == ["video", "audio", "mediaLink", "video", "audio", "mediaLink"])
        let names = ["publisher.videoNetworkStatsUpdated", "publisher.audioNetworkStatsUpdated", "publisher.mediaLinkStatsUpdated"]
        #expect(streamed == names + names)
    }

    @Test func nothingIsComputedWithoutAListenerButTheRawReportIsKept() throws {
        let monitor = PublisherStatsMonitor()
        monitor.ingest(report(1000, bytes: 1000), peerConnection: "pc")
        let delegate = RecordingDelegate()
        monitor.delegate = delegate
        monitor.ingest(report(2000, bytes: 2000), peerConnection: "pc")
        // The first report was not tracked, so the totals start from the second one's counters.
        #expect(delegate.names.count == 3)
        let raw = try #require(monitor.rtcStatsReport().first)
        #expect(raw.connectionId == "")
        let parsed = try JSONSerialization.jsonObject(with: Data(raw.jsonArrayOfReports.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 2)
        #expect(parsed?.first?["bytesSent"] as? Double == 2000)
    }
}
