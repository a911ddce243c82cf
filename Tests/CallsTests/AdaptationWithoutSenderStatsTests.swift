@testable import Calls
import Observability
import RTCStats
import Testing

/// The layer policy for any publisher (issue 23 item 2): no sender stats at all, the layers as
/// the subscriber sees them (docs/adaptation.md, "Without sender stats"). A real
/// ``SubscriberStatsMonitor`` reads one synthetic report a second: the selected pair's received
/// bytes (`rate` bps in the interval), the video's 100 packets (`loss` of them lost; none while
/// the video is paused or stopped), its payload bytes (90 % of the pair's) and decoded frames
/// (640x360 unless said), and 50 audio packets. The receive limits the adaptation sets are
/// given to the monitor, as ``SubscriptionController`` does.
///
/// Hand-worked from the policy's rules (SubscriberAdaptationTests has the arithmetic): the
/// video bitrate in healthy intervals is 0.9 × 500 000 = 450 000 bps; a layer fits when
/// 450 000 + 48 000 ≤ 0.85 × estimate; under a cap the estimate is the interval's goodput once
/// the video loses ≥ 2 %; 2 bad intervals warn, the next pauses, the probe comes 5 s later, and
/// `videoEnabled` after 2 intervals with frames (not counting the first after the resume).
@Suite struct AdaptationWithoutSenderStatsTests {
    struct Feed {
        let monitor = SubscriberStatsMonitor(stream: StreamID("7"), publisher: PublisherID("7"))
        var adaptation = SubscriberAdaptation()
        var second = 0
        var pairBytes = 0.0, videoBytes = 0.0
        var videoReceived = 0.0, videoLost = 0.0, framesDecoded = 0.0, audioReceived = 0.0
        var preferences = LayerPreferences()

        init() { adaptation.videoMid = "1" }

        /// One interval; `video: false` sends no video packet (paused, or stopped at the source),
        /// `audio: false` no audio packet either.
        mutating func interval(rate: Double, loss: Double = 0, video: Bool = true, audio: Bool = true,
                               frame: (width: Int, height: Int) = (640, 360)) -> [SubscriberAdaptation.Output] {
            second += 1
            let time = 1_800_000_000_000 + Double(second) * 1000
            pairBytes += rate / 8
            if video {
                videoBytes += 0.9 * rate / 8
                videoLost += (100 * loss).rounded()
                videoReceived += 100 - (100 * loss).rounded()
                framesDecoded += loss > 0.2 ? 3 : 15
            }
            if audio { audioReceived += 50 }
            let report = StatsReport(entries: [
                StatsEntry(id: "T01", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP1"))]),
                StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                    StatsField("bytesReceived", .number(pairBytes)), StatsField("state", .string("succeeded")), StatsField("nominated", .bool(true)),
                ]),
                StatsEntry(id: "IV", type: .inboundRTP, timestamp: time, fields: [
                    StatsField("kind", .string("video")), StatsField("ssrc", .number(11)), StatsField("mid", .string("1")),
                    StatsField("packetsReceived", .number(videoReceived)), StatsField("packetsLost", .number(videoLost)),
                    StatsField("bytesReceived", .number(videoBytes)), StatsField("framesDecoded", .number(framesDecoded)),
                    StatsField("frameWidth", .number(Double(frame.width))), StatsField("frameHeight", .number(Double(frame.height))),
                ]),
                StatsEntry(id: "IA", type: .inboundRTP, timestamp: time, fields: [
                    StatsField("kind", .string("audio")), StatsField("ssrc", .number(12)), StatsField("mid", .string("0")),
                    StatsField("packetsReceived", .number(audioReceived)), StatsField("packetsLost", .number(0)),
                    StatsField("bytesReceived", .number(audioReceived * 100)),
                ]),
            ])
            let reading = monitor.read(report, peerConnection: "pc-1")
            let outputs = adaptation.interval(reading, reportTime: time, preferences: preferences, now: .seconds(second))
            for case .receiveLimit(let limit) in outputs { monitor.setReceiveLimit(limit) }
            return outputs
        }

        /// Runs `count` intervals alike and returns their outputs by second.
        mutating func run(_ count: Int, _ body: (inout Feed) -> [SubscriberAdaptation.Output]) -> [Int: [SubscriberAdaptation.Output]] {
            var all: [Int: [SubscriberAdaptation.Output]] = [:]
            for _ in 0..<count {
                let outputs = body(&self)
                if !outputs.isEmpty { all[second] = outputs }
            }
            return all
        }
    }

    static func send(_ on: Bool) -> SubscriberAdaptation.Output { .configure(RouterStreamConfiguration(mid: "1", send: on)) }

    /// One layer (no simulcast: the router never names a substream), no sender stats, starved
    /// by a 100 kbit/s cap from second 6 (30 % video loss until the pause; no video from 9 to
    /// 12, audio only):
    /// - seconds 6, 7 bad (0.85 × 100 000 fits nothing) → warning at 7, pause at 8 (`send:
    ///   false`, `videoDisabled(qualityChanged)`, limit `.paused`);
    /// - the probe 5 s later, at 13 (`send: true`, no substream: there is no other layer);
    /// - the cap gone from 13: 14 is the first interval after the resume (not counted); the
    ///   measured downlink is still `critical` at 15 (the loss of 8, 30 of 150 with the audio,
    ///   stays in the two-interval window judged at 11; clean from the interval judged at 12,
    ///   a better level after 5 of them: at 16), so 15 confirms nothing; 16 and 17 decode
    ///   frames → `videoEnabled(qualityChanged)` at 17, limit `.none` (at 16 before issue 24,
    ///   when the downlink's condition did not hold the confirmation).
    /// Before issue 23 the policy did nothing without sender stats (no layers listed).
    @Test func aSingleLayerThatStarvesGoesWarningPausedProbeAndBack() {
        var feed = Feed()
        var outputs = feed.run(5) { $0.interval(rate: 500_000) }
        outputs.merge(feed.run(3) { $0.interval(rate: 100_000, loss: 0.3) }) { $1 }
        outputs.merge(feed.run(4) { $0.interval(rate: 40_000, video: false) }) { $1 }
        outputs.merge(feed.run(6) { $0.interval(rate: 500_000) }) { $1 }
        #expect(outputs == [
            7: [.event(.videoDisableWarning)],
            8: [Self.send(false), .event(.videoDisabled(.qualityChanged)), .receiveLimit(.paused)],
            13: [Self.send(true)],
            17: [.event(.videoEnabled(.qualityChanged)), .receiveLimit(.none)],
        ])
    }

    /// `subscribeToVideo = false` then `true` without sender stats: paused at once, and
    /// `videoEnabled(subscriberPropertyChanged)` once frames decode again (the interval after
    /// the resume not counted: seconds 8 and 9). Before issue 23 it never came.
    @Test func subscribeToVideoBackOnSaysVideoEnabled() {
        var feed = Feed()
        _ = feed.run(4) { $0.interval(rate: 500_000) }
        feed.preferences.subscribeToVideo = false
        #expect(feed.interval(rate: 500_000) == [Self.send(false), .event(.videoDisabled(.subscriberPropertyChanged)), .receiveLimit(.videoOff)])
        _ = feed.run(1) { $0.interval(rate: 40_000, video: false) }
        feed.preferences.subscribeToVideo = true
        #expect(feed.interval(rate: 40_000, video: false) == [Self.send(true)])
        let outputs = feed.run(4) { $0.interval(rate: 500_000) }
        #expect(outputs == [10: [.event(.videoEnabled(.subscriberPropertyChanged)), .receiveLimit(.none)]])
    }

    /// The publisher's media stops altogether from second 6 (it vanished: the pair still
    /// carries 1 kbit/s of RTCP), then comes back from 12: `videoDisabled(publisherPropertyChanged)`
    /// at 7 (the second silent interval), `videoEnabled(publisherPropertyChanged)` after two
    /// intervals with frames (12 and 13 decode again: at 13).
    @Test func aPublisherWhoseMediaStopsIsVideoDisabledAtItsSource() {
        var feed = Feed()
        var outputs = feed.run(5) { $0.interval(rate: 500_000) }
        outputs.merge(feed.run(6) { $0.interval(rate: 1_000, video: false, audio: false) }) { $1 }
        outputs.merge(feed.run(4) { $0.interval(rate: 500_000) }) { $1 }
        #expect(outputs == [
            7: [.event(.videoDisabled(.publisherPropertyChanged))],
            13: [.event(.videoEnabled(.publisherPropertyChanged))],
        ])
    }

    /// A simulcast publisher without sender stats (the router names substream 2, frames decode
    /// at 960x540, 450 kbit/s): layers 1 and 0 are taken as 480x270 and 240x135 (half per step),
    /// so `preferredResolution` 480x270 asks the router for substream 1 at the next interval.
    @Test func preferredResolutionWorksFromTheRoutersSubstreamAndTheDecodedSize() {
        var feed = Feed()
        _ = feed.adaptation.forwardedLayerChanged(substream: 2, temporal: nil)
        let start = feed.run(4) { $0.interval(rate: 500_000, frame: (960, 540)) }
        #expect(start[3] == [.configure(RouterStreamConfiguration(mid: "1", substream: 2, temporal: 2))])
        feed.preferences.resolution = CallVideoDimensions(width: 480, height: 270)
        #expect(feed.interval(rate: 500_000, frame: (960, 540)) == [.configure(RouterStreamConfiguration(mid: "1", substream: 1, temporal: 2))])
    }
}
