import Observability
import RTCStats

extension CallSession {
    /// One stats interval of a subscriber's layer policy: its monitor's callbacks and the
    /// publisher's latest sender stats in; configurations to the router, events to the
    /// subscriber and the receive limit to its monitor out.
    func adapt(_ key: ObjectIdentifier, callbacks: [StatsCallback], pairBytes: Double, reportTime: Double) async {
        guard var state = subscriptions[key] else { return }
        let subscriber = state.subscriber
        let outputs = state.adaptation.interval(callbacks: callbacks, pairBytes: pairBytes, reportTime: reportTime,
                                                senderStats: subscriber.statsMonitor.latestSenderStatsReceipt,
                                                measuredDownlink: subscriber.statsMonitor.measuredDownlink,
                                                preferences: subscriber.preferences, now: timer.elapsed)
        subscriptions[key] = state
        await perform(outputs, key: key, subscriber: subscriber, handle: state.machine.handle)
    }

    /// The router switched a subscription's layer.
    func forwardedLayerChanged(_ key: ObjectIdentifier, substream: Int?, temporal: Int?) {
        guard var state = subscriptions[key] else { return }
        let outputs = state.adaptation.forwardedLayerChanged(substream: substream, temporal: temporal)
        subscriptions[key] = state
        for case .event(let event) in outputs { state.subscriber.deliver([event]) }
    }

    private func perform(_ outputs: [SubscriberAdaptation.Output], key: ObjectIdentifier, subscriber: CallSubscriber, handle: RouterHandleID?) async {
        for output in outputs {
            switch output {
            case .configure(let configuration):
                guard let handle else { continue }
                do {
                    try await signaling.configure(handle, streams: [configuration])
                } catch {
                    subscriber.deliver([.didFail(CallError.wrapping(error, "configure"))])
                }
            case .event(let event):
                subscriber.deliver([event])
            case .receiveLimit(let limit):
                subscriber.storedReceiveLimit.withLock { $0 = limit }
                subscriber.statsMonitor.setReceiveLimit(limit)
            }
        }
    }
}

extension SubscriberAdaptation {
    /// The mid of the first video media section of an SDP, or `nil`.
    static func videoMid(in description: SessionDescription) -> String? {
        var inVideo = false
        for line in description.sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") {
                inVideo = line.hasPrefix("m=video")
            } else if inVideo, line.hasPrefix("a=mid:") {
                return String(line.dropFirst("a=mid:".count).filter { !$0.isWhitespace })
            }
        }
        return nil
    }
}
