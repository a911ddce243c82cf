import Observability

/// Another participant in the call (docs/spec/sessions.md §5): in the call from the router's join to its
/// leave (or until we end the call with it, ``disconnect()``), whatever its paths. Empty ``paths``
/// do not end the call.
public struct RemoteParticipant: Hashable, Sendable {
    /// The participant's connection.
    public var connection: CallConnection
    /// The working paths to this participant, end to end (seed 003's `RemoteParticipant.paths`):
    /// our leg to the router (``localPaths``) joined with its leg (``remotePaths``), each
    /// combination classed by its weaker leg (`udpDirect` < `udpRelay` < `tcpRelay`): a direct
    /// UDP leg to a participant relayed over TCP is a `tcpRelay` path. While its leg is unknown
    /// (its SDK shares no sender stats, or it does not publish) the router keeping it in the
    /// room stands for a working leg of unknown kind, and the paths are ours. Empty until one
    /// of our media connections to the router has a working pair, or when no path works.
    public var paths: ConnectionPaths
    /// How good the connection to it is (docs/spec/observability.md §8; seed 003's
    /// `Participant.connectionQuality`): `.unknown` until the stats of a subscription to its
    /// streams have scored it, then rated each second from round-trip time, jitter and loss
    /// (the E-model: jitter costs a voice call as surely as loss does); the worst level of its
    /// streams when we receive several; `.bad` while no path to it works.
    public var connectionQuality: ConnectionQuality
    /// The far leg: the participant's own working paths to the router, as the latest
    /// sender-stats message from it said (`nil` until one says — its SDK may not share them —
    /// and again when none came for 5 s).
    public var remotePaths: ConnectionPaths?
    /// Our leg: the working paths of our subscriptions to its streams, or, when we receive
    /// none of them, of any of our media connections to the router (the same router carries
    /// our media to it).
    public var localPaths: ConnectionPaths
    /// The session that can end the call with it (not part of its value).
    private var session: WeakCallSession

    /// The connection id (the router's participant id).
    public var connectionId: String { connection.connectionId }

    /// Creates a participant.
    public init(connection: CallConnection, paths: ConnectionPaths = [], connectionQuality: ConnectionQuality = .unknown,
                remotePaths: ConnectionPaths? = nil, localPaths: ConnectionPaths = []) {
        self.remotePaths = remotePaths
        self.connection = connection
        self.paths = paths
        self.connectionQuality = connectionQuality
        self.localPaths = localPaths
        session = WeakCallSession(nil)
    }

    /// A participant of `session`, whose ``disconnect()`` ends the call with it there.
    init(connection: CallConnection, in session: CallSession) {
        self.init(connection: connection)
        self.session = WeakCallSession(session)
    }

    /// Ends our side of the call with this participant, at any time, whatever its paths (seed
    /// 003): our subscriptions to its streams close and its streams are destroyed (`hungUp`);
    /// when it was the last other participant, we leave the room. `participantDidDisconnect`
    /// follows once the router confirmed (the subscription handles closed, or our leave).
    /// Nothing happens when it already left or the session is gone.
    public func disconnect() async {
        await session.object?.disconnect(from: connectionId)
    }

    /// Equal when everything but the session reference is.
    public static func == (lhs: RemoteParticipant, rhs: RemoteParticipant) -> Bool {
        lhs.connection == rhs.connection && lhs.paths == rhs.paths && lhs.connectionQuality == rhs.connectionQuality
            && lhs.remotePaths == rhs.remotePaths && lhs.localPaths == rhs.localPaths
    }

    /// Hashes everything but the session reference.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(connection)
        hasher.combine(paths)
        hasher.combine(connectionQuality)
        hasher.combine(remotePaths)
        hasher.combine(localPaths)
    }
}

/// A weakly held session, storable in a participant value.
struct WeakCallSession: Sendable {
    weak var object: CallSession?
    init(_ object: CallSession?) { self.object = object }
}
