import Observability

/// Collects, per second, what each link's condition was and turns runs of the same degradation
/// into sentences: "00:21–00:58 remote publisher uplink degraded (bandwidth); your downlink fine".
struct DegradationTimeline {
    private struct Run {
        var subject: String
        var text: String
        var from: Double
        var to: Double
    }

    private var open: [String: Run] = [:]
    private var closed: [Run] = []

    mutating func recordPublisher(peer: String, second: Double, transport: TransportStats) {
        let subject = "\(peer) (publisher)"
        let text = transport.networkCondition.isDegraded
            ? "your uplink \(transport.networkCondition.rawValue) (\(transport.networkConditionReason.rawValue))" : nil
        advance(subject: subject, text: text, second: second)
    }

    mutating func recordSubscriber(peer: String, stream: String, second: Double, stats: SubscriberMediaLinkStats) {
        let subject = "\(peer) (subscriber\(stream.isEmpty ? "" : " of \(stream)"))"
        let local = stats.transport
        let remote = stats.remotePublisherTransport
        let text: String?
        switch stats.networkDegradationSource {
        case .none: text = nil
        case .remote: text = "remote publisher uplink degraded (\(remote.networkConditionReason.rawValue)); your downlink fine"
        case .local: text = "your downlink degraded (\(local.networkConditionReason.rawValue)); remote publisher uplink \(remote.networkCondition == .unknown ? "unknown" : "fine")"
        case .bothOrUnclear: text = "both degraded: your downlink (\(local.networkConditionReason.rawValue)) and the remote publisher uplink (\(remote.networkConditionReason.rawValue))"
        case .unknown: text = "video poor, cause unknown (no sender stats from the publisher)"
        }
        advance(subject: subject, text: text, second: second)
    }

    private mutating func advance(subject: String, text: String?, second: Double) {
        if var run = open[subject] {
            if run.text == text {
                run.to = second
                open[subject] = run
                return
            }
            closed.append(run)
            open[subject] = nil
        }
        if let text { open[subject] = Run(subject: subject, text: text, from: second, to: second) }
    }

    /// The runs, in time order, as sentences.
    func lines() -> [String] {
        (closed + open.values).sorted { ($0.from, $0.subject) < ($1.from, $1.subject) }.map { run in
            "\(CallbackTextPrinter.clock(run.from))–\(CallbackTextPrinter.clock(run.to + 1)) \(run.subject): \(run.text)"
        }
    }
}
