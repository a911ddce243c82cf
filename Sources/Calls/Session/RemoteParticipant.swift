import Observability

/// Another participant in the call (docs/spec/sessions.md §5): in the call from the router's join to its
/// leave, whatever its paths. Empty ``paths`` do not end the call.
public struct RemoteParticipant: Hashable, Sendable {
    /// The participant's connection.
    public var connection: CallConnection
    /// The working paths to this participant, from the stats of our subscribers to its streams
    /// (empty until the first sample, or when no pair works).
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
    /// ``paths`` is our leg to the router for its streams.
    public var remotePaths: ConnectionPaths?

    /// The connection id (the router's participant id).
    public var connectionId: String { connection.connectionId }

    /// Creates a participant.
    public init(connection: CallConnection, paths: ConnectionPaths = [], connectionQuality: ConnectionQuality = .unknown,
                remotePaths: ConnectionPaths? = nil) {
        self.remotePaths = remotePaths
        self.connection = connection
        self.paths = paths
        self.connectionQuality = connectionQuality
    }
}
