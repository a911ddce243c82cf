import Calls
import Connectivity
import ConnectivityProbe

/// How a ``FriendManager`` probes, polls and decides.
public struct FriendManagerConfiguration: Sendable {
    /// Between two `getStats()` reads of each friend connection (and keepalives on it).
    public var statsInterval: Duration
    /// How long a candidate pair keeps counting as a path after the last packet it received.
    /// Each side sends a keepalive on the data channel every ``statsInterval``, so a working pair
    /// always has a packet this recent; a path lost is reported after about this long.
    public var pathLiveness: Duration
    /// The same for the pairs other than the selected one while the selected one works: those
    /// are only pinged every few seconds, and would come and go with a shorter window.
    public var backupPathLiveness: Duration
    /// Between two discoverability rounds when nothing changes. A firewall that starts dropping
    /// UDP changes no interface address, so only the next round notices it.
    public var discoverabilityInterval: Duration
    /// Consecutive worse rounds before a worse discoverability level is adopted.
    public var confirmationRounds: Int
    /// Which candidates friend connections may use (tests force relays with `.relay`).
    public var iceTransportPolicy: PeerConnectionConfiguration.IceTransportPolicy
    /// The label of the friend connection's data channel.
    public var dataChannelLabel: String
    /// How long the XMPP stream may stay down before we report `offline`: nobody can reach us
    /// to set up a connection without it. 10 s is past the client's first four reconnection
    /// attempts (0.2 + 1 + 2 + 5 s) and within the 10 s in which a discoverability change must
    /// be reported; a stream that resumes sooner (XEP-0198, 0.1 s measured) never shows.
    public var offlineAfterStreamLoss: Duration
    /// Makes the discoverability prober from the STUN/TURN servers the XMPP server announced;
    /// by default ``DiscoverabilityProber`` (POSIX sockets, network changes from the interface
    /// addresses).
    public var makeProber: @Sendable (DiscoverabilityProbeConfiguration) -> any DiscoverabilityProbing

    /// Creates a configuration: stats twice a second, paths lost after 2 s of silence (8 s for
    /// backup pairs while the selected one works), a
    /// discoverability round every 4 s (a changed firewall is seen within about 10 s: one
    /// round, and one confirming round for a worse level).
    public init(statsInterval: Duration = .milliseconds(500), pathLiveness: Duration = .seconds(2), backupPathLiveness: Duration = .seconds(8),
                discoverabilityInterval: Duration = .seconds(4), confirmationRounds: Int = 2,
                iceTransportPolicy: PeerConnectionConfiguration.IceTransportPolicy = .all, dataChannelLabel: String = "callscope-friend",
                offlineAfterStreamLoss: Duration = .seconds(10),
                makeProber: @escaping @Sendable (DiscoverabilityProbeConfiguration) -> any DiscoverabilityProbing = { DiscoverabilityProber(configuration: $0) }) {
        self.statsInterval = statsInterval
        self.pathLiveness = pathLiveness
        self.backupPathLiveness = backupPathLiveness
        self.discoverabilityInterval = discoverabilityInterval
        self.confirmationRounds = confirmationRounds
        self.iceTransportPolicy = iceTransportPolicy
        self.dataChannelLabel = dataChannelLabel
        self.offlineAfterStreamLoss = offlineAfterStreamLoss
        self.makeProber = makeProber
    }
}
