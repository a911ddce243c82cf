import Connectivity

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
    /// We ended the call with its publisher (``RemoteParticipant/disconnect()``).
    case hungUp
}

/// Everything a ``CallSession`` tells its delegate and its ``CallSession/events`` streams, in one
/// order.
public enum CallSessionEvent: Hashable, Sendable {
    /// We joined; `connection` is ours.
    case didConnect(CallConnection)
    /// A stream appeared: another participant's, or ours once published (it is ours when
    /// `stream.connection.connectionId == session.connection?.connectionId`).
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
    /// A participant is in the call with us (after its ``connectionCreated(_:)``).
    case participantDidConnect(RemoteParticipant)
    /// A participant left the call (after its ``connectionDestroyed(_:)``); only the router's
    /// leave ends a participant, never empty paths.
    case participantDidDisconnect(RemoteParticipant)
    /// The working paths to a participant changed (the participant carries the new ones).
    case participantPathsChanged(RemoteParticipant)
    /// A participant's connection quality changed (the participant carries the new one).
    case participantConnectionQualityChanged(RemoteParticipant)
    /// Our own discoverability changed (the first measured level counts as a change).
    case connectionStateChanged(SelfConnectionStatus)
    /// The size of a subscribed stream's decoded video changed (the first decoded size counts
    /// as a change); the stream carries the new ``CallStream/videoDimensions``.
    case streamVideoDimensionsChanged(CallStream)
    /// A stream's `hasAudio`, `hasVideo`, `name` or `videoType` changed (its publisher switched
    /// a track off or on, or described it anew); the stream carries the new values.
    case streamPropertiesChanged(CallStream)
}

/// `OTSessionDelegate` in docs/spec/README.md, for apps that prefer delegates to ``CallSession/events``.
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
    /// A participant is in the call.
    func session(_ session: CallSession, participantDidConnect participant: RemoteParticipant)
    /// A participant left the call.
    func session(_ session: CallSession, participantDidDisconnect participant: RemoteParticipant)
    /// The working paths to a participant changed.
    func session(_ session: CallSession, didUpdatePaths participant: RemoteParticipant)
    /// A participant's connection quality changed.
    func session(_ session: CallSession, didUpdateConnectionQuality participant: RemoteParticipant)
    /// Our own discoverability changed.
    func session(_ session: CallSession, didUpdateConnectionState state: SelfConnectionStatus)
    /// A subscribed stream's decoded video size changed (the reference SDK's
    /// `session(_:streamVideoDimensionsChanged:)`, docs/spec/README.md).
    func session(_ session: CallSession, streamVideoDimensionsChanged stream: CallStream)
    /// A stream's `hasAudio`, `hasVideo`, `name` or `videoType` changed.
    func session(_ session: CallSession, streamPropertiesChanged stream: CallStream)
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
    /// Default: nothing.
    public func session(_ session: CallSession, participantDidConnect participant: RemoteParticipant) {}
    /// Default: nothing.
    public func session(_ session: CallSession, participantDidDisconnect participant: RemoteParticipant) {}
    /// Default: nothing.
    public func session(_ session: CallSession, didUpdatePaths participant: RemoteParticipant) {}
    /// Default: nothing.
    public func session(_ session: CallSession, didUpdateConnectionQuality participant: RemoteParticipant) {}
    /// Default: nothing.
    public func session(_ session: CallSession, didUpdateConnectionState state: SelfConnectionStatus) {}
    /// Default: nothing.
    public func session(_ session: CallSession, streamVideoDimensionsChanged stream: CallStream) {}
    /// Default: nothing.
    public func session(_ session: CallSession, streamPropertiesChanged stream: CallStream) {}
}
