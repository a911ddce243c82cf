import Observability

extension CallSession {
    /// Subscribes: opens a router handle of its own for the stream (so each subscriber recovers
    /// on its own), answers the router's offer, and reports `didConnect` when media flows.
    /// - Throws: ``CallError`` `notConnected`, `alreadySubscribed`, `ownStream`, `streamGone`,
    ///   `routerError` (with the router's code) or `mediaEngine`.
    public func subscribe(_ subscriber: CallSubscriber) async throws(CallError) {
        guard let room else { throw CallError(.notConnected, "subscribe: not connected") }
        let streamID = subscriber.stream.streamId
        guard !subscriptions.contains(where: { $0.subscriber === subscriber }) else {
            throw CallError(.alreadySubscribed, "subscribe: already subscribed to \(streamID)")
        }
        let own = subscriber.stream.connection.connectionId == room.own.connectionId
        if own, !configuration.allowsSubscribingToOwnStream {
            throw CallError(.ownStream, "subscribe: \(streamID) is our own stream")
        }
        guard own || room.roster.streams[FeedID(streamID)] != nil else { throw CallError(.streamGone, "subscribe: no stream \(streamID) in the session") }
        let subscription = SubscriptionController(subscriber: subscriber, settings: .init(reconnectWindow: configuration.reconnectWindow))
        subscriptions.append(subscription)
        do {
            try await subscription.open(in: self)
        } catch {
            await subscription.close(in: self)
            throw CallError.wrapping(error, "subscribe to \(streamID)")
        }
    }

    /// Unsubscribes at once; idempotent. Nothing reaches the subscriber afterwards.
    public func unsubscribe(_ subscriber: CallSubscriber) async {
        await subscriptions.first { $0.subscriber === subscriber }?.unsubscribe(in: self)
    }

    /// The subscribers now subscribed.
    public var subscribers: [CallSubscriber] { subscriptions.map(\.subscriber) }

    /// The open subscription whose peer connection is `pc`.
    func subscription(on pc: PeerConnectionID) -> SubscriptionController? {
        subscriptions.first { $0.isOpen && $0.connection.peerConnection == pc }
    }

    /// The open subscription whose router handle is `handle`.
    func subscription(on handle: RouterHandleID) -> SubscriptionController? {
        subscriptions.first { $0.isOpen && $0.connection.handle == handle }
    }

    /// A subscription closed: the session forgets it, its paths stop counting.
    func subscriptionEnded(_ subscription: SubscriptionController) {
        subscriptions.removeAll { $0 === subscription }
        deliver(delivery.participants.subscriptionEnded(ObjectIdentifier(subscription)))
    }

    /// A subscription's reconnect window ran out: its stream is gone for the app, then offered
    /// again (``reofferIfStillPublished(_:)``).
    func streamLost(_ stream: CallStream) {
        _ = room?.roster.drop(FeedID(stream.streamId))
        deliver([.streamDestroyed(stream, reason: .mediaLost)])
        reofferTasks.append(Task { [weak self] in await self?.reofferIfStillPublished(stream) })
    }

    /// A stream our side dropped comes back as `streamCreated` (same id) while its publisher
    /// still publishes: the router says so, or, when it cannot tell, no `unpublished` came.
    /// When the router cannot be asked (its session is lost), the rejoin offers it instead.
    func reofferIfStillPublished(_ stream: CallStream) async {
        let feed = FeedID(stream.streamId)
        do {
            guard try await signaling.isPublishing(feed) != false else { return }
        } catch {
            return
        }
        guard let events = room?.roster.reoffer(feed, now: wallClock()) else { return }
        deliver(events)
    }

    /// A subscriber's sample: the size of the frames it decodes becomes its stream's
    /// ``CallStream/videoDimensions`` (in ``streams``, and on every subscriber of that stream),
    /// with `streamVideoDimensionsChanged` when it changed. With simulcast the router may
    /// forward a smaller layer than the publisher sends: the size is what we decode.
    func decodedVideo(_ dimensions: CallVideoDimensions, of stream: CallStream) {
        guard let events = room?.roster.decodedVideo(dimensions, of: FeedID(stream.streamId)), !events.isEmpty else { return }
        for subscription in subscriptions where subscription.stream.streamId == stream.streamId {
            subscription.subscriber.setVideoDimensions(dimensions)
        }
        deliver(events)
    }
}
