import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// A starved link is not a stopped camera (issue 24, docs/network-condition.md): the video alone
/// silent while the audio arrives is the link's (``PublisherSending/videoStarved``) when the
/// interval shows any trouble, the publisher's (``PublisherSending/videoStopped``, after two
/// intervals) only on a clean link.
@Suite struct StarvedVideoTests {
    /// The rule as a table: each fact alone makes the silence the link's; none, the publisher's.
    @Test(arguments: [
        (VideoSilenceEvidence(audioLossFraction: 0, roundTripQueued: false), false),
        (VideoSilenceEvidence(audioLossFraction: 0.02, roundTripQueued: false), false),     // 1 of 50 lost: noise
        (VideoSilenceEvidence(audioLossFraction: 0.03, roundTripQueued: false), true),
        (VideoSilenceEvidence(audioLossFraction: 0.24, roundTripQueued: false), true),      // 12 of 50, as measured at 64 kbit/s
        (VideoSilenceEvidence(audioLossFraction: 0, roundTripQueued: true), true),
        (VideoSilenceEvidence(audioLossFraction: 0.24, roundTripQueued: true), true),
    ])
    func theLinkStarvesTheVideoOnAnySignOfTrouble(evidence: VideoSilenceEvidence, starves: Bool) {
        #expect(evidence.linkStarves == starves)
    }

    /// What the link does from report 10 on, each second (before: 35 video packets, 50 audio
    /// packets, none lost, 2 ms round trip, the sender reports count every video packet).
    enum Silence { case audioLoss, queueing, sentNotArrived, clean }

    /// Feeds 10 healthy reports, then 6 with no video packet (`silence` says how the link looks),
    /// and returns what the engine says of the publisher after each report.
    static func run(_ silence: Silence) -> [PublisherSending?] {
        var engine = CallStatsEngine()
        var video = 0.0, audio = 0.0, audioLost = 0.0, sent = 0.0, pairBytes = 0.0, frames = 0.0
        var out: [PublisherSending?] = []
        for report in 0..<16 {
            let time = Double(report) * 1000
            var roundTrip = 0.002
            if report > 0 {
                if report < 10 {
                    video += 35
                    sent += 35
                    frames += 15
                } else if silence == .sentNotArrived {
                    sent += 12
                }
                audio += silence == .audioLoss && report >= 10 ? 38 : 50
                audioLost += silence == .audioLoss && report >= 10 ? 12 : 0
                pairBytes += report < 10 ? 40_000 : 6_000
            }
            if silence == .queueing, report >= 10 { roundTrip = 0.25 }
            let entries = [
                Synthetic.vp8Codec(at: time),
                Synthetic.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
                Synthetic.entry("CP", .candidatePair, at: time, ["bytesReceived": pairBytes, "state": "succeeded", "nominated": true,
                                                                 "requestsSent": Double(report), "responsesReceived": Double(report),
                                                                 "currentRoundTripTime": roundTrip]),
                Synthetic.entry("IV", .inboundRTP, at: time, ["kind": "video", "mid": "1", "bytesReceived": video * 1000, "packetsReceived": video,
                                                              "packetsLost": 0, "framesDecoded": frames, "frameWidth": 640, "frameHeight": 360, "codecId": "COV"]),
                Synthetic.entry("IA", .inboundRTP, at: time, ["kind": "audio", "mid": "0", "bytesReceived": audio * 100, "packetsReceived": audio,
                                                              "packetsLost": audioLost]),
                Synthetic.entry("ROV", .remoteOutboundRTP, at: time, ["kind": "video", "localId": "IV", "packetsSent": sent]),
            ]
            _ = engine.ingest(Synthetic.sample("subscriber", at: time, entries))
            out.append(engine.publisherSending(endpoint: EndpointID("subscriber")))
        }
        return out
    }

    /// Audio losing 12 of 50, or the round trip at 250 ms (2 ms before): starved from the first
    /// silent interval (report 10) to the last. Before, both read `videoStopped` from 11.
    @Test(arguments: [Silence.audioLoss, .queueing])
    func aSilentVideoOnATroubledLinkIsStarved(silence: Silence) {
        let readings = Self.run(silence)
        #expect(readings[9] == .sending)
        for report in 10..<16 { #expect(readings[report] == .videoStarved, "report \(report)") }
    }

    /// A clean link: `sending` at 10 (one silent second is no stop), `videoStopped` from 11;
    /// also when the sender's reports count 12 video packets a second that never arrive (not
    /// taken as trouble: measured, they count more than is sent on a clean link).
    @Test(arguments: [Silence.clean, .sentNotArrived])
    func aSilentVideoOnACleanLinkIsStillStopped(silence: Silence) {
        let readings = Self.run(silence)
        #expect(readings[10] == .sending)
        for report in 11..<16 { #expect(readings[report] == .videoStopped, "report \(report)") }
    }
}
