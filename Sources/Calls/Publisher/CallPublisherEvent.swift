/// What happens to a publisher's media connection, in order.
public enum CallPublisherEvent: Hashable, Sendable {
    /// Media flows to the router for the first time.
    case didConnect(CallStream)
    /// The publisher's media path was lost (its selected pair's received bytes and responses
    /// flat, ICE `disconnected`, or the router hung up); the SDK restarts ICE, then publishes
    /// again, by itself.
    case didDisconnect(CallStream)
    /// Media flows again; the stream is the one published now (after a republish on a new
    /// handle its id may be new: the other participants then saw `streamDestroyed` and
    /// `streamCreated`).
    case didReconnect(CallStream)
    /// The media path could not be restored within the reconnect window: the publisher stopped
    /// publishing (``CallPublisher/stream`` is `nil`).
    case streamDestroyed(CallStream, reason: StreamDestroyedReason)
    /// Something failed that no call was waiting for (an ICE restart or a republish).
    case didFail(CallError)
}

/// The publisher delegate. Called in the order ``CallPublisher/events`` yields.
public protocol CallPublisherDelegate: AnyObject, Sendable {
    /// Media flows for the first time.
    func publisherDidConnect(_ publisher: CallPublisher)
    /// The media path was lost; reconnection is under way.
    func publisherDidDisconnect(_ publisher: CallPublisher)
    /// Media flows again.
    func publisherDidReconnect(_ publisher: CallPublisher)
    /// The publisher stopped publishing because its media could not be restored.
    func publisher(_ publisher: CallPublisher, streamDestroyed stream: CallStream, reason: StreamDestroyedReason)
    /// Something failed.
    func publisher(_ publisher: CallPublisher, didFailWithError error: CallError)
}

extension CallPublisherDelegate {
    /// Default: nothing.
    public func publisherDidConnect(_ publisher: CallPublisher) {}
    /// Default: nothing.
    public func publisherDidDisconnect(_ publisher: CallPublisher) {}
    /// Default: nothing.
    public func publisherDidReconnect(_ publisher: CallPublisher) {}
    /// Default: nothing.
    public func publisher(_ publisher: CallPublisher, streamDestroyed stream: CallStream, reason: StreamDestroyedReason) {}
    /// Default: nothing.
    public func publisher(_ publisher: CallPublisher, didFailWithError error: CallError) {}
}

/// A weakly held publisher delegate, storable in a `Locked`.
struct WeakPublisherDelegate: Sendable {
    weak var object: (any CallPublisherDelegate)?
    init(_ object: (any CallPublisherDelegate)?) { self.object = object }
}
