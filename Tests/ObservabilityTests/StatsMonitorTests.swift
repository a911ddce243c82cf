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
        let streamed = await stream.first(6, timeout: .seconds(5)).map(\.event.callbackName)
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

/// A publisher with `senderStatsTrack` hands its messages to the app; a subscriber fed them
/// reports the publisher's sender stats.
@Suite struct SenderStatsTrackTests {
    final class Outbox: @unchecked Sendable {
        // @unchecked: written only from the test's own task, through the monitor's synchronous call.
        var messages: [[UInt8]] = []
    }

    @Test func publisherMessagesReachASubscriberThroughTheSameDecoder() throws {
        let publisher = PublisherStatsMonitor(senderStatsTrack: true)
        let outbox = Outbox()
        publisher.senderStatsSender = { outbox.messages.append($0) }
        let subscriber = SubscriberStatsMonitor()
        var latest: SenderStats?
        final class Catch: SubscriberNetworkStatsDelegate, @unchecked Sendable {
            // @unchecked: touched only from the test's own task.
            var senderStats: SenderStats?
            func subscriber(_ monitor: SubscriberStatsMonitor, videoNetworkStatsUpdated stats: SubscriberVideoNetworkStats) { senderStats = stats.senderStats }
        }
        let catcher = Catch()
        subscriber.delegate = catcher
        for second in 1...3 {
            let time = Double(second) * 1000
            publisher.ingest(StatsReport(entries: [
                Synthetic.videoLayer("OT1", at: time, rid: "f", width: 640, height: 360, bytesSent: time * 100, extra: ["targetBitrate": 1_000_000]),
                Synthetic.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
                Synthetic.entry("CP", .candidatePair, at: time, ["availableOutgoingBitrate": 1_500_000]),
            ]), peerConnection: "pub-1")
            if let bytes = outbox.messages.last { subscriber.receiveSenderStats(bytes, at: time + 500) }
            subscriber.ingest(StatsReport(entries: [
                Synthetic.entry("IT1", .inboundRTP, at: time + 600, ["kind": "video", "bytesReceived": time * 100, "packetsReceived": time / 10, "packetsLost": 0]),
            ]), peerConnection: "sub-1")
            latest = catcher.senderStats
        }
        #expect(outbox.messages.count == 3)
        #expect(outbox.messages.allSatisfy { $0.count <= SenderStatsMessage.maximumSize })
        #expect(subscriber.senderStatsCounts.accepted == 3)
        #expect(latest == SenderStats(connectionMaxAllocatedBitrate: 1_000_000, connectionEstimatedBandwidth: 1_500_000))
    }
}
