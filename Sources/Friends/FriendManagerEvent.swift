import Connectivity
import FriendConnections
import XMPP

/// What a ``FriendManager`` reports, in order, each only on change.
public enum FriendManagerEvent: Hashable, Sendable {
    /// Our discoverability (seed 003: `offline` / `tcp` / `udp`) and the probes it was decided from.
    case discoverabilityChanged(SelfConnectionStatus, DiscoverabilityEvidence)
    /// A friend's paths changed (seed 003's `didUpdatePaths`); empty when none works or the
    /// friend went offline.
    case pathsChanged(JID, FriendConnectionPaths)
    /// A friend connection could not be set up, failed, or the friend ended it for a reason other
    /// than leaving (`gone`, `success`: no event); it is set up again when the friend comes online
    /// again (or, for the side that offers, after ``FriendManager/retryDelay``).
    case connectionFailed(JID, reason: String)
}

/// Counts kept by a ``FriendManager``.
public struct FriendManagerStatistics: Hashable, Sendable {
    /// Friend connections set up (peer connections made).
    public var connectionsOpened = 0
    /// Friend connections closed.
    public var connectionsClosed = 0
    /// Signalling messages refused: for no session we know, malformed, or from someone who is not a friend.
    public var signalsRefused = 0
    /// Friend connections that failed or that the friend ended other than by leaving (each also reported as
    /// ``FriendManagerEvent/connectionFailed(_:reason:)``).
    public var connectionsFailed = 0
    /// ICE restarts of friend connections: offers with new credentials (as the initiator) and
    /// answers to them (as the responder).
    public var iceRestarts = 0
    /// Times the XMPP server handed out TURN credentials again before they expired (XEP-0215).
    public var credentialRefreshes = 0
    /// Times a connection's selected pair went silent and its stats were read faster until it
    /// answered again or its silence outlasted the window (each about 30 reads at most).
    public var fastReadEpisodes = 0
    /// Times a connection's selected pair stayed silent long enough for an ICE restart, which we
    /// started (as the initiator) or asked for (as the responder).
    public var silentPairRestarts = 0
}
