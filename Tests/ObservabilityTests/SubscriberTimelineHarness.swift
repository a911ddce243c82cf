import CallScopeTestSupport
@testable import Observability
import RTCStats

/// Feeds a subscriber's stream one report per second, with a sender-stats message from its
/// publisher half a second before each report from report 1 on, and keeps what each report produced. Used by
/// the step-down and both-sides tests, whose expected values are worked out by hand:
/// - report `r` is at `r` s and closes interval `r`; video: 100 packets expected per interval,
///   `lost` of them lost; no candidate pair, so no estimate and no headroom: only loss scores;
/// - the message says the publisher's own uplink condition, so the remote uplink is that
///   condition as soon as a message has arrived.
struct SubscriberTimelineHarness {
    /// One second of the call.
    struct Second {
        /// Video packets lost of 100 in the interval.
        var lost: Double = 0
        /// The decoded height of the received video.
        var height = 540
        /// The publisher's uplink condition, reason and loss fraction in its message.
        var remote: (NetworkCondition, NetworkConditionReason) = (.excellent, .none)
        var upstreamLoss = 0.0
        /// The heights of the layers the publisher lists (none: no `layers` in its message).
        var offered: [Int] = [135, 270, 540]
    }

    /// What one report produced.
    struct Outcome {
        var condition: NetworkCondition = .unknown
        var reason: NetworkConditionReason = .unknown
        var remote: NetworkCondition = .unknown
        var source: NetworkDegradationSource = .none
        var conditionEvent: String?
    }

    /// Feeds `seconds` (index = report number); `limitsFromPolicy`: a policy sets `.none` before
    /// the first report (it speaks for the stream from then on).
    static func run(_ seconds: [Second], limitsFromPolicy: Bool = false) -> [Outcome] {
        var engine = CallStatsEngine()
        let endpoint = EndpointID("subscriber")
        if limitsFromPolicy { engine.setReceiveLimit(.none, endpoint: endpoint) }
        var lost = 0.0, received = 0.0
        var outcomes: [Outcome] = []
        for (index, second) in seconds.enumerated() {
            let time = Double(index) * 1000
            if index > 0 {
                lost += second.lost
                received += 100 - second.lost
            }
            if index > 0 {
                let layers = second.offered.map { SenderStatsMessage.Layer(width: $0 * 16 / 9, height: $0, bitrate: Double($0) * 1000) }
                let message = SenderStatsMessage(sequence: index, timestamp: time - 500, connectionMaxAllocatedBitrate: 2_000_000,
                                                 connectionEstimatedBandwidth: 2_000_000, roundTripTime: 1, lossFraction: second.upstreamLoss,
                                                 condition: second.remote.0, reason: second.remote.1, layers: layers)
                engine.receiveSenderStats(message.encoded(), endpoint: endpoint, at: time - 500)
            }
            let entries = [Synthetic.vp8Codec(at: time), Synthetic.entry("IV", .inboundRTP, at: time, [
                "kind": "video", "mid": "1", "bytesReceived": received * 1000, "packetsReceived": received, "packetsLost": lost,
                "framesDecoded": Double(index) * 30, "frameWidth": second.height * 16 / 9, "frameHeight": second.height, "codecId": "COV"])]
            var outcome = Outcome()
            for callback in engine.ingest(Synthetic.sample("subscriber", at: time, entries)) {
                switch callback.event {
                case .subscriberMediaLinkStatsUpdated(let link):
                    outcome.condition = link.transport.networkCondition
                    outcome.reason = link.transport.networkConditionReason
                    outcome.remote = link.remotePublisherTransport.networkCondition
                    outcome.source = link.networkDegradationSource
                case .subscriberNetworkConditionChanged(let link, let reason):
                    outcome.conditionEvent = "\(link.transport.networkCondition.rawValue)/\(reason.rawValue)"
                default:
                    break
                }
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// `count` seconds, changed by `edit` for the reports in each range.
    static func timeline(_ count: Int, _ edits: [(ClosedRange<Int>, (inout Second) -> Void)] = []) -> [Second] {
        (0..<count).map { index in
            var second = Second()
            for (range, edit) in edits where range.contains(index) { edit(&second) }
            return second
        }
    }

    /// The condition events by report number.
    static func events(_ outcomes: [Outcome]) -> [Int: String] {
        var events: [Int: String] = [:]
        for (index, outcome) in outcomes.enumerated() { if let event = outcome.conditionEvent { events[index] = event } }
        return events
    }
}
