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
        await perform(outputs, key: key, subscriber: subscriber, handle: state.machine.handle, reportTime: reportTime)
    }

    /// The router switched a subscription's layer.
    func forwardedLayerChanged(_ key: ObjectIdentifier, substream: Int?, temporal: Int?) {
        guard var state = subscriptions[key] else { return }
        let outputs = state.adaptation.forwardedLayerChanged(substream: substream, temporal: temporal)
        subscriptions[key] = state
        for case .event(let event) in outputs { state.subscriber.deliver([event]) }
    }

    private func perform(_ outputs: [SubscriberAdaptation.Output], key: ObjectIdentifier, subscriber: CallSubscriber, handle: RouterHandleID?,
                         reportTime: Double) async {
        for output in outputs {
            switch output {
            case .configure(let configuration):
                guard let handle else { continue }
                sendInOrder(configuration, key: key, handle: handle)
            case .event(let event):
                subscriber.deliver([event])
            case .receiveLimit(let limit):
                subscriber.storedReceiveLimit.withLock { $0 = limit }
                if let pc = subscriptions[key]?.machine.peerConnection {
                    statsRecorder?(.receiveLimitChanged(stream: subscriber.stream, peerConnection: pc.rawValue, limit: limit, time: reportTime))
                }
                subscriber.statsMonitor.setReceiveLimit(limit)
            }
        }
    }
}

extension CallSession {
    /// Sends a subscription's `configure` once the router has taken the ones before it, not
    /// waiting for their answers: those come over the same downlink the policy is reacting to,
    /// behind every other event (measured on the rig with the whole client behind a 100 kbit/s
    /// cap: answers 20-40 s late; awaited inline, one stopped every stats sample; awaited before
    /// the next request, the pause waited 23 s behind the step down asked for a second before
    /// it, and audio lost 25 % meanwhile). Janus acts on a request when it arrives, in arrival
    /// order; the answer only says it did. A failed answer is still reported.
    private func sendInOrder(_ configuration: RouterStreamConfiguration, key: ObjectIdentifier, handle: RouterHandleID) {
        guard var state = subscriptions[key] else { return }
        let previous = state.configuring
        let signaling = self.signaling
        state.configuring = Task {
            await previous?.value
            do {
                let answer = try await signaling.sendConfigure(handle, streams: [configuration])
                Task {
                    do {
                        try await answer.value
                    } catch {
                        self.configureFailed(key, handle: handle, error: error)
                    }
                }
            } catch {
                self.configureFailed(key, handle: handle, error: error)
            }
        }
        subscriptions[key] = state
    }

    /// A `configure` failed: the subscriber hears it while it still uses that handle.
    private func configureFailed(_ key: ObjectIdentifier, handle: RouterHandleID, error: any Error) {
        guard let state = subscriptions[key], state.machine.handle == handle else { return }
        state.subscriber.deliver([.didFail(CallError.wrapping(error, "configure"))])
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
