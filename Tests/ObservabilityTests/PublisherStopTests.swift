import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// A publisher that stops sending is not my network (issue 23 item 1, docs/network-condition.md),
/// on synthetic reports shaped like the rig's two blackouts (Rig/RECORDINGS.md):
/// - every report `r` (at `r` s) closes one interval: 100 video packets (1 250 bytes each) and 50
///   audio packets (100 bytes each) while media flows, none lost; the selected pair's bytes
///   grow by the RTP bytes plus 128 bytes of RTCP a second;
/// - our STUN checks go out every 3 s (reports 0, 3, 6, ...); on a working path each is answered
///   in the same interval at 2 ms;
/// - the publisher stops at report `stop` (interval `stop` is the first without a packet).
///   Publisher gone: RTCP and the answers keep coming. Our downlink gone: the pair's bytes stand
///   still, the checks go unanswered (one more a second, as Chromium retries) and the pair
///   leaves `succeeded` two seconds in.
@Suite struct PublisherStopTests {
    enum Gone { case publisher, downlink }

    struct Outcome {
        var condition: NetworkCondition
        var reason: NetworkConditionReason
        var estimate: Double
        var estimateUnknown: Bool
        var remote: NetworkCondition
        var source: NetworkDegradationSource
        var conditionEvents: [NetworkConditionReason]
        var sending: PublisherSending?
    }

    /// Feeds `count` reports; media stops from `stop` on (`videoOnly`: the audio goes on).
    static func run(_ count: Int, stop: Int, gone: Gone, videoOnly: Bool = false) -> [Outcome] {
        var engine = CallStatsEngine()
        let endpoint = EndpointID("subscriber")
        var video = 0.0, audio = 0.0, pairBytes = 0.0, requests = 0.0, responses = 0.0, frames = 0.0
        var outcomes: [Outcome] = []
        for report in 0..<count {
            let time = Double(report) * 1000
            let stopped = report >= stop
            if report > 0 {
                if !stopped { video += 100; frames += 15 }
                if !stopped || videoOnly { audio += 50 }
                let rtp = (stopped ? 0 : 100 * 1250) + (!stopped || videoOnly ? 50 * 100 : 0)
                pairBytes += gone == .downlink && stopped ? 0 : Double(rtp) + 128
            }
            var state = "succeeded"
            if gone == .downlink, stopped {
                requests += 1
                if report - stop >= 2 { state = "in-progress" }
            } else if report % 3 == 0 {
                requests += 1
                responses += 1
            }
            let entries = [
                Synthetic.vp8Codec(at: time),
                Synthetic.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
                Synthetic.entry("CP", .candidatePair, at: time, ["bytesReceived": pairBytes, "state": state, "nominated": true,
                                                                 "requestsSent": requests, "responsesReceived": responses, "currentRoundTripTime": 0.002]),
                Synthetic.entry("IV", .inboundRTP, at: time, ["kind": "video", "mid": "1", "bytesReceived": video * 1250, "packetsReceived": video,
                                                              "packetsLost": 0, "framesDecoded": frames, "frameWidth": 640, "frameHeight": 360, "codecId": "COV"]),
                Synthetic.entry("IA", .inboundRTP, at: time, ["kind": "audio", "mid": "0", "bytesReceived": audio * 100, "packetsReceived": audio, "packetsLost": 0]),
            ]
            var outcome = Outcome(condition: .unknown, reason: .unknown, estimate: 0, estimateUnknown: true, remote: .unknown, source: .none,
                                  conditionEvents: [], sending: nil)
            for callback in engine.ingest(Synthetic.sample("subscriber", at: time, entries)) {
                switch callback.event {
                case .subscriberMediaLinkStatsUpdated(let link):
                    outcome.condition = link.transport.networkCondition
                    outcome.reason = link.transport.networkConditionReason
                    outcome.estimate = link.transport.connectionEstimatedBandwidth
                    outcome.estimateUnknown = link.transport.unmeasured.contains(.estimatedBandwidth)
                    outcome.remote = link.remotePublisherTransport.networkCondition
                    outcome.source = link.networkDegradationSource
                case .subscriberNetworkConditionChanged(_, let reason):
                    outcome.conditionEvents.append(reason)
                default:
                    break
                }
            }
            outcome.sending = engine.publisherSending(endpoint: endpoint)
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Media flows 10 s (100·1 250 + 50·100 + 128 bytes a second on the pair), then the
    /// publisher is gone for 20 s with not a packet lost. Hand-worked:
    /// - intervals 10 and 11 are silent while the pair carries RTCP: the source is stopped at
    ///   report 11 (two silent intervals with the path alive), remote `critical` / `unknown`,
    ///   source `remote`, one condition event (reason `unknown`);
    /// - the downlink is never scored on a silent interval: it stays `excellent` / `none`;
    /// - the estimate stays 1 041 024 bps (130 128 bytes a second) (the highest rate with media), never the ~1 kbit/s of RTCP.
    @Test func aPublisherThatStopsIsRemoteNotLocalLoss() throws {
        let outcomes = Self.run(30, stop: 10, gone: .publisher)
        #expect(outcomes[9].source == .none && outcomes[9].condition == .excellent)
        #expect(outcomes[10].sending == .sending)                   // one silent second is no stop yet
        for report in 11..<30 {
            let outcome = outcomes[report]
            #expect(outcome.sending == .stopped, "report \(report)")
            #expect(outcome.source == .remote, "report \(report)")
            #expect(outcome.remote == .critical, "report \(report)")
            #expect((outcome.condition, outcome.reason) == (.excellent, .none), "report \(report)")
            #expect(!outcome.estimateUnknown && outcome.estimate == 1_041_024, "report \(report)")
        }
        #expect(outcomes[11].conditionEvents == [.unknown])
        #expect(outcomes.allSatisfy { !$0.conditionEvents.contains(.packetLoss) && !$0.conditionEvents.contains(.bandwidth) })
    }

    /// Our own downlink gone (pair bytes still, checks unanswered): still local total loss, as
    /// before. Interval 10 (first silent) has no evidence yet, interval 11 says the path is
    /// down; interval 10 is judged at report 12 with that evidence: `critical` / `packetLoss`.
    @Test func ourOwnBlackoutIsStillLocalLoss() {
        let outcomes = Self.run(20, stop: 10, gone: .downlink)
        #expect((outcomes[12].condition, outcomes[12].reason, outcomes[12].source) == (.critical, .packetLoss, .local))
        #expect(outcomes[19].sending == .sending)
        #expect(outcomes.allSatisfy { $0.remote != .critical })
    }

    /// The video alone stops while the audio flows (the publisher stopped its camera track, or
    /// its uplink cannot carry video): the publisher's video is reported stopped from the second
    /// silent interval; the downlink (the audio, no loss) stays `excellent`, so the source is
    /// never `local`: `unknown` (a stalled video without sender stats, docs/spec/observability.md §6).
    @Test func aPublisherThatStopsItsVideoIsNoNetworkTrouble() {
        let outcomes = Self.run(20, stop: 10, gone: .publisher, videoOnly: true)
        #expect(outcomes[10].sending == .sending)
        for report in 11..<20 {
            #expect(outcomes[report].sending == .videoStopped, "report \(report)")
            #expect(outcomes[report].source == .unknown, "report \(report)")
            #expect(outcomes[report].condition == .excellent, "report \(report)")
        }
    }

    /// The estimator leaves out an interval that offered nothing: 100 kbit/s read, then 10
    /// intervals of RTCP only (1 kbit/s), the estimate is still 100 kbit/s.
    @Test func aRateWithNothingOfferedIsNoCapacity() {
        var estimator = DownlinkEstimator()
        #expect(estimator.update(time: 0, bytesReceived: 0, maximumGap: 3000) == nil)
        #expect(estimator.update(time: 1000, bytesReceived: 12_500, maximumGap: 3000) == 100_000)
        var bytes = 12_500.0
        for second in 2...12 {
            bytes += 128
            #expect(estimator.update(time: Double(second) * 1000, bytesReceived: bytes, maximumGap: 3000, offered: false) == 100_000)
        }
    }
}
