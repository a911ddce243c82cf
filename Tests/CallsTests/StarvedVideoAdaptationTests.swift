@testable import Calls
import Observability
import RTCStats
import Testing

/// A starved link is not a stopped camera (issue 24, docs/network-condition.md): the layer
/// policy falls back to audio when the link starves the video, and still reads a camera that
/// stops on a clean link as the publisher's doing. A real ``SubscriberStatsMonitor`` reads one
/// synthetic report a second, shaped like the relayed call measured in RealRelayedFallbackTests
/// (Bob's downlink capped at 64 kbit/s, then Alice's camera stopped with no cap):
/// - healthy: 35 video packets (none lost, 15 frames of 640x360), 51 audio packets, the pair
///   carries 330 kbit/s (the video's payload 90 % of it) at 2 ms; the publisher's sender report
///   counts the 35 video packets it sent;
/// - the cap's first second: 19 video packets and 2 lost, 39 audio packets, 195 kbit/s;
/// - starved: no video packet at all, 38 audio packets and 12 lost, 50 kbit/s, the pair's
///   round trip 250 ms, the sender reports 15 more video packets sent each second;
/// - camera stopped: no video packet, 51 audio packets none lost, 65 kbit/s at 2 ms, the sender
///   reports nothing more sent.
///
/// Hand-worked with the policy's rules (docs/adaptation.md): the healthy layer is the one seen,
/// 0.9 × 330 000 = 297 000 bps; a layer fits when 297 000 + 48 000 ≤ 0.85 × estimate.
@Suite struct StarvedVideoAdaptationTests {
    struct Second {
        var video = 35.0, videoLost = 0.0, audio = 51.0, audioLost = 0.0
        var rate = 330_000.0, roundTrip = 0.002, sent = 35.0

        static let healthy = Second()
        static let onset = Second(video: 19, videoLost: 2, audio: 39, rate: 195_000, sent: 37)
        static let starved = Second(video: 0, audio: 38, audioLost: 12, rate: 50_000, roundTrip: 0.25, sent: 15)
        static let stopped = Second(video: 0, audio: 51, rate: 65_000, sent: 0)
        static let trickle = Second(video: 2, audio: 40, audioLost: 17, rate: 49_000, sent: 11)
    }

    struct Feed {
        let monitor = SubscriberStatsMonitor(stream: StreamID("7"), publisher: PublisherID("7"))
        var adaptation = SubscriberAdaptation()
        var second = 0
        var pairBytes = 0.0, videoBytes = 0.0, videoReceived = 0.0, videoLost = 0.0, frames = 0.0
        var audioReceived = 0.0, audioLost = 0.0, sent = 0.0

        init() { adaptation.videoMid = "1" }

        mutating func interval(_ s: Second) -> [SubscriberAdaptation.Output] {
            second += 1
            let time = 1_800_000_000_000 + Double(second) * 1000
            pairBytes += s.rate / 8
            if s.video > 0 {
                videoBytes += 0.9 * s.rate / 8
                frames += 15
            }
            videoReceived += s.video
            videoLost += s.videoLost
            audioReceived += s.audio
            audioLost += s.audioLost
            sent += s.sent
            let report = StatsReport(entries: [
                StatsEntry(id: "T01", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP1"))]),
                StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                    StatsField("bytesReceived", .number(pairBytes)), StatsField("state", .string("succeeded")), StatsField("nominated", .bool(true)),
                    StatsField("currentRoundTripTime", .number(s.roundTrip)),
                ]),
                StatsEntry(id: "IV", type: .inboundRTP, timestamp: time, fields: [
                    StatsField("kind", .string("video")), StatsField("ssrc", .number(11)), StatsField("mid", .string("1")),
                    StatsField("packetsReceived", .number(videoReceived)), StatsField("packetsLost", .number(videoLost)),
                    StatsField("bytesReceived", .number(videoBytes)), StatsField("framesDecoded", .number(frames)),
                    StatsField("frameWidth", .number(640)), StatsField("frameHeight", .number(360)),
                ]),
                StatsEntry(id: "IA", type: .inboundRTP, timestamp: time, fields: [
                    StatsField("kind", .string("audio")), StatsField("ssrc", .number(12)), StatsField("mid", .string("0")),
                    StatsField("packetsReceived", .number(audioReceived)), StatsField("packetsLost", .number(audioLost)),
                    StatsField("bytesReceived", .number(audioReceived * 100)),
                ]),
                StatsEntry(id: "ROV", type: .remoteOutboundRTP, timestamp: time, fields: [
                    StatsField("kind", .string("video")), StatsField("ssrc", .number(11)), StatsField("localId", .string("IV")),
                    StatsField("packetsSent", .number(sent)),
                ]),
            ])
            let reading = monitor.read(report, peerConnection: "pc-1")
            let outputs = adaptation.interval(reading, reportTime: time, preferences: LayerPreferences(), now: .seconds(second))
            for case .receiveLimit(let limit) in outputs { monitor.setReceiveLimit(limit) }
            return outputs
        }

        /// Feeds `seconds` in order; the outputs by second (only seconds that had some).
        mutating func run(_ seconds: [Second]) -> [Int: [SubscriberAdaptation.Output]] {
            var all: [Int: [SubscriberAdaptation.Output]] = [:]
            for s in seconds {
                let outputs = interval(s)
                if !outputs.isEmpty { all[second] = outputs }
            }
            return all
        }
    }

    static func send(_ on: Bool) -> SubscriberAdaptation.Output { .configure(RouterStreamConfiguration(mid: "1", send: on)) }

    /// The 64 kbit/s sequence: 5 healthy seconds, the onset at 6, starved from 7.
    /// - 6: the video loses 2 of 21 (9.5 % ≥ 2 %): the estimate is the interval's 195 000 bps,
    ///   0.85 × 195 000 = 165 750 < 345 000: nothing fits (bad 1);
    /// - 7: the video silent while the audio loses 12 of 50 (24 % ≥ 3 %) and the round trip
    ///   queues: starved, the estimate is the link's 50 000 bps: nothing fits (bad 2): warning;
    /// - 8: bad again while warned: `send: false`, `videoDisabled(qualityChanged)`, limit `.paused`.
    /// Before, 7 and 8 were two silent intervals with the audio arriving, read as the camera
    /// stopped: `videoDisabled(publisherPropertyChanged)` at 8 and nothing asked of the publisher.
    @Test func aStarvedVideoFallsBackToAudio() {
        var feed = Feed()
        let outputs = feed.run(Array(repeating: .healthy, count: 5) + [.onset] + Array(repeating: .starved, count: 4))
        #expect(outputs == [
            7: [.event(.videoDisableWarning)],
            8: [Self.send(false), .event(.videoDisabled(.qualityChanged)), .receiveLimit(.paused)],
        ])
    }

    /// The cap lets a few video packets through (2 a second, none counted lost yet) while the
    /// audio loses 17 of 57 (measured at 64 kbit/s in one run): 6 bad as above; 7 short of
    /// 0.8 × 330 000 with the audio losing 30 % ≥ 3 %: the link is full, the estimate 49 000
    /// fits nothing (bad 2): warning; 8 the same: the pause. Before, 8 was the second short
    /// interval without video loss, taken for a rate dip (no estimate): the warning was lifted
    /// and the fallback came 3 s later.
    @Test func aTrickleOfVideoWhileTheAudioLosesFallsBackToAudio() {
        var feed = Feed()
        let outputs = feed.run(Array(repeating: .healthy, count: 5) + [.onset] + Array(repeating: .trickle, count: 4))
        #expect(outputs == [
            7: [.event(.videoDisableWarning)],
            8: [Self.send(false), .event(.videoDisabled(.qualityChanged)), .receiveLimit(.paused)],
        ])
    }

    /// Alice's camera stops on a clean link from second 6: two silent intervals (6, 7) with the
    /// audio whole, the round trip at 2 ms and her reports counting nothing more sent:
    /// `videoDisabled(publisherPropertyChanged)` at 7, no warning, nothing sent to her.
    @Test func aStoppedCameraOnACleanLinkIsStillThePublishers() {
        var feed = Feed()
        let outputs = feed.run(Array(repeating: .healthy, count: 5) + Array(repeating: .stopped, count: 5))
        #expect(outputs == [7: [.event(.videoDisabled(.publisherPropertyChanged))]])
    }

    /// After the fallback, the cap gone: the probe at 13 (5 s after the pause at 8) brings the
    /// video back below its healthy rate (the publisher's congestion control ramps up: 150 kbit/s
    /// at 14 and 15, none lost). A probe fails on loss, not on that shortfall: 14 is the first
    /// interval after the resume (not counted), 15 and 16 decode frames → `videoEnabled` at 16.
    /// Before, 15 was short of 0.8 × 297 000 with no loss: the estimate 150 000 fitted nothing,
    /// the probe failed, and each probe after it failed the same way.
    @Test func aProbeThatComesBackSlowerThanBeforeTheCapSucceeds() {
        var feed = Feed()
        var outputs = feed.run(Array(repeating: .healthy, count: 5) + [.onset] + Array(repeating: .starved, count: 2))
        // Paused: the publisher's black frames (a few packets) and the audio, clean once it stops sending video.
        let paused = Second(video: 2, audio: 51, rate: 60_000, sent: 2)
        outputs = feed.run(Array(repeating: paused, count: 5))
        #expect(outputs == [13: [Self.send(true)]])
        let rampUp = Second(video: 20, audio: 51, rate: 150_000, sent: 20)
        outputs = feed.run([rampUp, rampUp, rampUp, .healthy])
        #expect(outputs == [16: [.event(.videoEnabled(.qualityChanged)), .receiveLimit(.none)]])
    }

    /// A probe into a cap that still holds: the resumed video does not arrive at all past the
    /// interval that waits for its key frame, the audio does: the probe fails (back to paused,
    /// no event) at 15, and the next comes 8 s later (the backoff doubled to 10 s, held at its
    /// 8 s maximum: at 23).
    @Test func aProbeWhoseVideoNeverArrivesFails() {
        var feed = Feed()
        _ = feed.run(Array(repeating: .healthy, count: 5) + [.onset] + Array(repeating: .starved, count: 2))
        let paused = Second(video: 2, audio: 51, rate: 60_000, sent: 2)
        var outputs = feed.run(Array(repeating: paused, count: 5))
        #expect(outputs == [13: [Self.send(true)]])
        let starvedProbe = Second(video: 0, audio: 51, rate: 60_000, sent: 10)
        outputs = feed.run(Array(repeating: starvedProbe, count: 2))
        #expect(outputs == [15: [Self.send(false)]])
        outputs = feed.run(Array(repeating: paused, count: 8))
        #expect(outputs == [23: [Self.send(true)]])
    }
}
