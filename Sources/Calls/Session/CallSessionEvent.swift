/// Why a stream left the session.
public enum StreamDestroyedReason: String, Hashable, Sendable {
    /// The publisher stopped publishing.
    case unpublished
    /// The publisher left the session (or was removed).
    case publisherLeft
    /// Our connection to the stream could not be restored within the reconnect window.
    case mediaLost
    /// Our session ended.
    case sessionEnded
}

/// Everything a ``CallSession`` tells its delegate and its ``CallSession/events`` streams, in one
/// order.
public enum CallSessionEvent: Hashable, Sendable {
    /// We joined; `connection` is ours.
    case didConnect(CallConnection)
    /// Another participant's stream appeared.
    case streamCreated(CallStream)
    /// A stream left.
    case streamDestroyed(CallStream, reason: StreamDestroyedReason)
    /// Another participant joined.
    case connectionCreated(CallConnection)
    /// Another participant left.
    case connectionDestroyed(CallConnection)
    /// The session ended (by us, or because signaling was lost).
    case didDisconnect
    /// Something failed that no call was waiting for.
    case didFail(CallError)
}

/// The seeds' `OTSessionDelegate`, for apps that prefer delegates to ``CallSession/events``.
/// Called in the same order as the stream yields, outside the session's state updates.
public protocol CallSessionDelegate: AnyObject, Sendable {
    /// We joined.
    func sessionDidConnect(_ session: CallSession)
    /// A stream appeared.
    func session(_ session: CallSession, streamCreated stream: CallStream)
    /// A stream left.
    func session(_ session: CallSession, streamDestroyed stream: CallStream, reason: StreamDestroyedReason)
    /// A participant joined.
    func session(_ session: CallSession, connectionCreated connection: CallConnection)
    /// A participant left.
    func session(_ session: CallSession, connectionDestroyed connection: CallConnection)
    /// The session ended.
    func sessionDidDisconnect(_ session: CallSession)
    /// Something failed.
    func session(_ session: CallSession, didFailWithError error: CallError)
}

extension CallSessionDelegate {
    /// Default: nothing.
    public func sessionDidConnect(_ session: CallSession) {}
    /// Default: nothing.
    public func session(_ session: CallSession, streamCreated stream: CallStream) {}
    /// Default: nothing.
    public func session(_ session: CallSession, streamDestroyed stream: CallStream, reason: StreamDestroyedReason) {}
    /// Default: nothing.
    public func session(_ session: CallSession, connectionCreated connection: CallConnection) {}
    /// Default: nothing.
    public func session(_ session: CallSession, connectionDestroyed connection: CallConnection) {}
    /// Default: nothing.
    public func sessionDidDisconnect(_ session: CallSession) {}
    /// Default: nothing.
    public func session(_ session: CallSession, didFailWithError error: CallError) {}
}
