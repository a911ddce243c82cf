import CallScopeTestSupport
import Observability
import RTCStats
import Testing

/// The subscriber's network-condition change in both of the reference SDK's forms
/// (docs/spec/observability.md §1): `networkConditionChanged(mediaLinkStats:reason:)` and
/// `networkConditionChanged(videoStats:audioStats:reason:)`, the second right after the first,
/// with the same reason and the stats of the same sample. Synthetic subscriber: 100 video and 50
/// audio packets a second, the video losing 40 of them from the third second on (40 of 150,
/// 27 %: `critical`, above the 15 % bound), so the condition changes at least once.
@Suite struct ConditionChangedFormsTests {
    final class Recorder: SubscriberNetworkStatsDelegate, @unchecked Sendable {
        // @unchecked: called synchronously from the test's own ingest calls.
        var lastVideo: SubscriberVideoNetworkStats?
        var lastAudio: SubscriberAudioNetworkStats?
        var mediaLinkForm: [(SubscriberMediaLinkStats, NetworkConditionReason)] = []
        var statsForm: [(video: SubscriberVideoNetworkStats, audio: SubscriberAudioNetworkStats, reason: NetworkConditionReason)] = []
        /// For each call of the stats form: the video and audio stats of its sample, delivered before it.
        var sampleStats: [(SubscriberVideoNetworkStats?, SubscriberAudioNetworkStats?)] = []

        func subscriber(_ monitor: SubscriberStatsMonitor, videoNetworkStatsUpdated stats: SubscriberVideoNetworkStats) { lastVideo = stats }
        func subscriber(_ monitor: SubscriberStatsMonitor, audioNetworkStatsUpdated stats: SubscriberAudioNetworkStats) { lastAudio = stats }
        func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged mediaLinkStats: SubscriberMediaLinkStats, reason: NetworkConditionReason) {
            mediaLinkForm.append((mediaLinkStats, reason))
        }
        func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged videoStats: SubscriberVideoNetworkStats, audioStats: SubscriberAudioNetworkStats,
                        reason: NetworkConditionReason) {
            statsForm.append((videoStats, audioStats, reason))
            sampleStats.append((lastVideo, lastAudio))
        }
    }

    /// Twelve seconds of the synthetic subscriber, every callback to `recorder`.
    static func feed(_ recorder: Recorder) {
        let monitor = SubscriberStatsMonitor()
        monitor.delegate = recorder
        var videoReceived = 0.0, videoLost = 0.0, audioReceived = 0.0
        for second in 1...12 {
            let time = 1_800_000_000_000 + Double(second) * 1000
            let lost = second >= 3 ? 40.0 : 0
            videoLost += lost
            videoReceived += 100 - lost
            audioReceived += 50
            monitor.ingest(StatsReport(entries: [
                Synthetic.entry("IV", .inboundRTP, at: time, ["kind": "video", "ssrc": 11, "packetsReceived": videoReceived, "packetsLost": videoLost,
                                                              "bytesReceived": videoReceived * 1000, "framesDecoded": Double(second) * 15,
                                                              "frameWidth": 640, "frameHeight": 360]),
                Synthetic.entry("IA", .inboundRTP, at: time, ["kind": "audio", "ssrc": 12, "packetsReceived": audioReceived, "packetsLost": 0,
                                                              "bytesReceived": audioReceived * 100]),
            ]), peerConnection: "sub-1")
        }
    }

    @Test func theVideoAndAudioStatsFormFollowsEveryMediaLinkForm() throws {
        let recorder = Recorder()
        Self.feed(recorder)
        #expect(!recorder.mediaLinkForm.isEmpty)
        #expect(recorder.statsForm.count == recorder.mediaLinkForm.count)
        for (index, change) in zip(recorder.statsForm, recorder.mediaLinkForm).enumerated() {
            #expect(change.0.reason == change.1.1, "change \(index)")
            // The stats of the sample that changed: the ones delivered just before.
            #expect(change.0.video.timestamp == recorder.sampleStats[index].0?.timestamp, "change \(index)")
            #expect(change.0.audio == recorder.sampleStats[index].1, "change \(index)")
        }
    }
}
