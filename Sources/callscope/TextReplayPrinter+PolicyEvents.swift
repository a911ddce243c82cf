import CallScopeReplay
import Observability
import RTCStats

extension TextReplayPrinter {
    /// A layer-policy decision the recording carries, marked like a callback (`▶`), with the
    /// receive limit the replay applied.
    mutating func print(_ event: SubscriberPolicyEvent) {
        let start = origin ?? event.time
        origin = start
        let clock = CallbackTextPrinter.clock((event.time - start) / 1000)
        let stream = event.stream == .sole ? "" : " [\(event.stream.rawValue)]"
        let who = "\(event.endpoint)\(event.peerConnection.map { "/\($0)" } ?? "")\(stream)"
        var detail: String
        switch event.name {
        case TimelineEventName.subscriberLayerChanged:
            let substream = event.data["substream"]?.number.map { String(Int($0.clamped(to: -1...1_000))) } ?? "?"
            let temporal = event.data["temporal"]?.number.map { String(Int($0.clamped(to: -1...1_000))) } ?? "?"
            detail = "layerChanged: substream \(substream), temporal \(temporal)"
        case TimelineEventName.subscriberVideoDisabled, TimelineEventName.subscriberVideoEnabled:
            detail = "\(event.name.dropFirst("subscriber.".count)): \(event.data["reason"]?.string ?? "no reason")"
        default:
            detail = String(event.name.dropFirst("subscriber.".count))
        }
        detail += "; receive limit \(event.limit.rawValue)\(event.unreadable ? " (unreadable limit in the line: unchanged)" : "")"
        Swift.print("\(clock) ▶ \(who) \(detail)")
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double {
        isFinite ? Swift.min(Swift.max(self, range.lowerBound), range.upperBound) : range.lowerBound
    }
}
