import Observability

extension SubscriptionController {
    /// One stats interval of the layer policy: what the monitor read in; configurations to the
    /// router, events to the subscriber and the receive limit to its monitor out.
    func adapt(_ reading: SubscriberReading, reportTime: Double, in session: isolated CallSession) async {
        let outputs = adaptation.interval(reading, reportTime: reportTime, preferences: subscriber.preferences, now: session.timer.elapsed)
        for output in outputs {
            switch output {
            case .configure(let configuration):
                guard let handle = connection.handle else { continue }
                sendInOrder(configuration, handle: handle, in: session)
            case .event(let event):
                subscriber.deliver([event])
            case .receiveLimit(let limit):
                subscriber.storedReceiveLimit.withLock { $0 = limit }
                if let pc = connection.peerConnection {
                    session.statsRecorder?(.receiveLimitChanged(stream: stream, peerConnection: pc.rawValue, limit: limit, time: reportTime))
                }
                subscriber.statsMonitor.setReceiveLimit(limit)
            }
        }
    }

    /// Sends a `configure` once the router has taken the ones before it, not waiting for their
    /// answers: those come over the same downlink the policy is reacting to, behind every other
    /// event (measured on the rig with the whole client behind a 100 kbit/s cap: answers
    /// 20-40 s late; awaited inline, one stopped every stats sample; awaited before the next
    /// request, the pause waited 23 s behind the step down asked for a second before it, and
    /// audio lost 25 % meanwhile). Janus acts on a request when it arrives, in arrival order;
    /// the answer only says it did. A failed answer is still reported, while the subscriber
    /// still uses that handle.
    func sendInOrder(_ configuration: RouterStreamConfiguration, handle: RouterHandleID, in session: isolated CallSession) {
        let previous = configuring
        let signaling = session.signaling
        // On the session's executor (they capture the isolated `session`).
        configuring = Task { [weak self] in
            await previous?.value
            do {
                let answer = try await signaling.sendConfigure(handle, streams: [configuration])
                Task { [weak self] in
                    do { try await answer.value } catch { self?.configureFailed(handle: handle, error: error, in: session) }
                }
            } catch {
                self?.configureFailed(handle: handle, error: error, in: session)
            }
        }
    }

    /// Applies ``CallSubscriber/subscribeToAudio`` to the audio media section when it differs
    /// from what the router was last asked (a new handle forwards audio again).
    func applySubscribeToAudio(in session: isolated CallSession) {
        let wanted = subscriber.subscribeToAudio
        guard let mid = audio.mid, let handle = connection.handle, wanted != audio.forwarded else { return }
        audio.forwarded = wanted
        sendInOrder(RouterStreamConfiguration(mid: mid, send: wanted), handle: handle, in: session)
    }

    private func configureFailed(handle: RouterHandleID, error: any Error, in session: isolated CallSession) {
        guard isOpen, connection.handle == handle else { return }
        subscriber.deliver([.didFail(CallError.wrapping(error, "configure"))])
    }
}

extension SubscriberAdaptation {
    /// The mid of the first video media section of an SDP, or `nil`.
    static func videoMid(in description: SessionDescription) -> String? { mid(of: "video", in: description) }

    /// The mid of the first media section of `kind` (`audio`, `video`) of an SDP, or `nil`.
    static func mid(of kind: String, in description: SessionDescription) -> String? {
        var inKind = false
        for line in description.sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") {
                inKind = line.hasPrefix("m=\(kind) ")
            } else if inKind, line.hasPrefix("a=mid:") {
                return String(line.dropFirst("a=mid:".count).filter { !$0.isWhitespace })
            }
        }
        return nil
    }
}
