import Calls
import RTCStats

extension CallEventPrinter {
    /// A layer-policy event of a subscriber: `subscriber.layerChanged {substream, temporal,
    /// limit}`, `subscriber.videoDisabled {reason}`, `subscriber.videoEnabled {reason}`,
    /// `subscriber.videoDisableWarning`, `subscriber.videoDisableWarningLifted` (printed and,
    /// when recording, written as timeline events).
    func adaptationLine(_ event: CallSubscriberEvent, subscriber: CallSubscriber) {
        let stream = subscriber.stream.streamId
        switch event {
        case .videoDisableWarning:
            line(callback: TimelineEventName.subscriberVideoDisableWarning, peer: "subscriber", stream: stream, data: .object([]))
        case .videoDisableWarningLifted:
            line(callback: TimelineEventName.subscriberVideoDisableWarningLifted, peer: "subscriber", stream: stream, data: .object([]))
        case .videoDisabled(let reason):
            line(callback: TimelineEventName.subscriberVideoDisabled, peer: "subscriber", stream: stream, data: .object([StatsField("reason", .string(reason.rawValue))]))
        case .videoEnabled(let reason):
            line(callback: TimelineEventName.subscriberVideoEnabled, peer: "subscriber", stream: stream, data: .object([StatsField("reason", .string(reason.rawValue))]))
        case .layerChanged(let substream, let temporal):
            line(callback: TimelineEventName.subscriberLayerChanged, peer: "subscriber", stream: stream, data: .object([
                StatsField("substream", .number(Double(substream))), StatsField("temporal", .number(Double(temporal))),
                StatsField("limit", .string(subscriber.receiveLimit.rawValue)),
            ]))
        case .didConnect, .didDisconnect, .didReconnect, .didFail:
            break
        }
    }
}
