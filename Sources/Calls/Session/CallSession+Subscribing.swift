import Observability
import Foundation

/// One subscriber's state in the session.
struct SubscriptionState: Sendable {
    let subscriber: CallSubscriber
    var machine: SubscriberConnectionMachine
    /// The layer policy and what feeds it.
    var adaptation = SubscriberAdaptation()
    /// The last `configure` sent for the layer policy (the next one waits for it).
    var configuring: Task<Void, Never>?
}

extension CallSession {
    /// Subscribes: opens a router handle of its own for the stream (so each subscriber recovers
    /// on its own), answers the router's offer, and reports `didConnect` when media flows.
    /// - Throws: ``CallError`` `notConnected`, `alreadySubscribed`, `ownStream`, `streamGone`,
    ///   `routerError` (with the router's code) or `mediaEngine`.
    public func subscribe(_ subscriber: CallSubscriber) async throws(CallError) {
        guard let connection, let roster else { throw CallError(.notConnected, "subscribe: not connected") }
        let key = ObjectIdentifier(subscriber)
        let streamID = subscriber.stream.streamId
        guard subscriptions[key] == nil else { throw CallError(.alreadySubscribed, "subscribe: already subscribed to \(streamID)") }
        let own = subscriber.stream.connection.connectionId == connection.connectionId
        if own, !configuration.allowsSubscribingToOwnStream {
            throw CallError(.ownStream, "subscribe: \(streamID) is our own stream")
        }
        guard own || roster.streams[FeedID(streamID)] != nil else { throw CallError(.streamGone, "subscribe: no stream \(streamID) in the session") }
        let settings = SubscriberConnectionMachine.Settings(reconnectWindow: configuration.reconnectWindow)
        subscriptions[key] = SubscriptionState(subscriber: subscriber, machine: SubscriberConnectionMachine(settings: settings))
        do {
            try await openSubscription(key)
        } catch {
            if let state = subscriptions[key] { await tearDown(state) }
            forget(key)
            throw CallError.wrapping(error, "subscribe to \(streamID)")
        }
    }

    /// Unsubscribes at once; idempotent. Nothing reaches the subscriber afterwards.
    public func unsubscribe(_ subscriber: CallSubscriber) async {
        await feed(ObjectIdentifier(subscriber), .unsubscribe)
    }

    /// The subscribers now subscribed.
    public var subscribers: [CallSubscriber] { subscriptions.values.map(\.subscriber) }

    // MARK: - Opening and renegotiating

    /// Opens a handle and peer connection for the subscription `key` and answers the offer.
    func openSubscription(_ key: ObjectIdentifier) async throws {
        guard let subscriber = subscriptions[key]?.subscriber else { return }
        let offer = try await signaling.subscribe(to: FeedID(subscriber.stream.streamId))
        guard subscriptions[key] != nil else {          // unsubscribed while we waited
            await signaling.close(offer.handle)
            return
        }
        let pc = try await engine.makePeerConnection(configuration.peerConnection)
        trickle.expect(pc)
        subscriptionsByPeer[pc] = key
        subscriptionsByHandle[offer.handle] = key
        subscriptions[key]?.adaptation.restart(videoMid: SubscriberAdaptation.videoMid(in: offer.offer))
        await feed(key, .peerConnectionStarted(pc, offer.handle))
        try await answer(offer.offer, key: key, pc: pc, handle: offer.handle)
    }

    /// Sets the router's offer, answers it (with our own data channel when the offer has one:
    /// Janus relays data only to a subscriber that opened one) and sends the held candidates.
    private func answer(_ offer: SessionDescription, key: ObjectIdentifier, pc: PeerConnectionID, handle: RouterHandleID) async throws {
        guard isCurrent(key, pc) else { return }
        if let mid = SubscriberAdaptation.videoMid(in: offer) { subscriptions[key]?.adaptation.videoMid = mid }
        try await engine.setRemoteDescription(offer, on: pc)
        if offer.sdp.contains("m=application"), !trickle.hasSeen(pc) {
            try await engine.openDataChannel(label: CallPublisher.senderStatsChannel + "-sub", on: pc)
        }
        let answer = try await engine.createAnswer(on: pc)
        guard isCurrent(key, pc) else { return }
        try await signaling.start(handle, answer: answer)
        for candidate in trickle.ready(pc, handle: handle) { try? await signaling.trickle(candidate, on: handle) }
        await feed(key, .answerSent(pc))
    }

    func renegotiate(_ key: ObjectIdentifier, offer: SessionDescription) async {
        guard let state = subscriptions[key], let pc = state.machine.peerConnection, let handle = state.machine.handle else { return }
        await feed(key, .offerReceived(handle))
        do {
            try await answer(offer, key: key, pc: pc, handle: handle)
        } catch {
            subscriptions[key]?.subscriber.deliver([.didFail(CallError.wrapping(error, "renegotiation"))])
        }
    }

    private func isCurrent(_ key: ObjectIdentifier, _ pc: PeerConnectionID) -> Bool {
        subscriptions[key]?.machine.peerConnection == pc
    }

    // MARK: - Inputs

    func subscriptionReceived(_ event: MediaEngineEvent, key: ObjectIdentifier) async {
        switch event {
        case .iceConnectionState(let pc, let state):
            await feed(key, .iceState(pc, state))
        case .dataChannelMessage(let pc, let label, let text):
            // Janus relays the publisher's channel to a subscriber under the publisher's feed
            // id as label (measured: "callscope" became the feed id), not under ours.
            guard let subscriber = subscriptions[key]?.subscriber,
                  label.hasPrefix(CallPublisher.senderStatsChannel) || label == subscriber.stream.connection.connectionId else { return }
            let time = wallClock().timeIntervalSince1970 * 1000
            statsRecorder?(.senderStatsReceived(stream: subscriber.stream, peerConnection: pc.rawValue, message: text, time: time))
            let accepted = subscriber.statsMonitor.senderStatsCounts.accepted
            subscriber.statsMonitor.receiveSenderStats(Array(text.utf8), at: time)
            // Only a message the monitor took says something new (a dropped one must not
            // refresh the last one's paths).
            if subscriber.statsMonitor.senderStatsCounts.accepted > accepted, let far = subscriber.statsMonitor.latestSenderStats?.paths {
                deliver(participantBook.remotePathsReported(ConnectionPaths(far), participant: subscriber.stream.connection.connectionId,
                                                            at: timer.elapsed))
            }
        default:
            break
        }
    }

    func subscriptionMediaUp(_ key: ObjectIdentifier) async {
        guard let handle = subscriptions[key]?.machine.handle else { return }
        await feed(key, .routerMediaUp(handle))
    }

    func subscriptionHungUp(_ key: ObjectIdentifier, handle: RouterHandleID) async {
        await feed(key, .routerHangup(handle))
    }

    /// Feeds the subscription's machine and performs its actions, in order.
    func feed(_ key: ObjectIdentifier, _ input: SubscriberConnectionMachine.Input) async {
        guard var state = subscriptions[key] else { return }
        let actions = state.machine.receive(input, now: timer.elapsed)
        subscriptions[key] = state
        await perform(actions, key: key, subscriber: state.subscriber)
    }

    private func perform(_ actions: [SubscriberConnectionMachine.Action], key: ObjectIdentifier, subscriber: CallSubscriber) async {
        for action in actions {
            switch action {
            case .emit(let kind):
                subscriber.deliver([CallSubscriberEvent(kind, stream: subscriber.stream)])
            case .restartIce(let handle):
                do {
                    try await signaling.restartIce(handle)
                } catch {
                    subscriber.deliver([.didFail(CallError.wrapping(error, "ICE restart"))])
                }
            case .replacePeerConnection(let pc, let handle):
                closeRoutes(pc: pc, handle: handle)
                try? await engine.closePeerConnection(pc)
                await signaling.close(handle)
                do {
                    try await openSubscription(key)
                } catch {
                    subscriber.deliver([.didFail(CallError.wrapping(error, "new peer connection"))])
                }
            case .armTimer(let id, let deadline):
                let task = Task { [weak self] in
                    guard let self else { return }
                    do { try await self.timer.sleep(untilElapsed: deadline) } catch { return }
                    await self.feed(key, .timerFired(id))
                }
                timers[key, default: []].append(task)
            case .destroyStream:
                let stream = subscriber.stream
                _ = roster?.drop(FeedID(stream.streamId))
                deliver([.streamDestroyed(stream, reason: .mediaLost)])
            case .tearDown(let pc, let handle):
                if let pc { closeRoutes(pc: pc, handle: handle); try? await engine.closePeerConnection(pc) }
                if let handle { await signaling.close(handle) }
                forget(key)
            }
        }
    }

    // MARK: - Cleanup

    /// Closes a subscription's peer connection and handle (session end, stream gone).
    func tearDown(_ state: SubscriptionState) async {
        if let pc = state.machine.peerConnection {
            closeRoutes(pc: pc, handle: state.machine.handle)
            try? await engine.closePeerConnection(pc)
        }
        if let handle = state.machine.handle { await signaling.close(handle) }
    }

    private func closeRoutes(pc: PeerConnectionID, handle: RouterHandleID?) {
        trickle.forget(pc)
        subscriptionsByPeer[pc] = nil
        if let handle { subscriptionsByHandle[handle] = nil }
    }

    /// Drops every trace of the subscription `key`.
    func forget(_ key: ObjectIdentifier) {
        subscriptions[key] = nil
        for task in timers.removeValue(forKey: key) ?? [] { task.cancel() }
        subscriptionsByPeer = subscriptionsByPeer.filter { $0.value != key }
        subscriptionsByHandle = subscriptionsByHandle.filter { $0.value != key }
        participantSubscriptionEnded(key)
    }
}
