import Calls
import Observability
import CallScopeCore
import Connectivity
import FriendConnections
import XMPP
import XMPPClient

/// Seed 003's friend manager: our discoverability (`offline` / `tcp` / `udp`, probed against
/// the STUN/TURN servers the XMPP server announces, re-probed on its own), the friends of the
/// roster, and one friend connection per online friend, whose working candidate pairs give that
/// friend's paths (`udpDirect` / `udpRelay` / `tcpRelay`), reported on change.
///
/// A friend connection is a peer connection with one data channel and no media, negotiated over
/// XMPP with Jingle; of two friends, the device whose full JID sorts first offers
/// (``FriendSessionRole``). Each side sends a small keepalive on the channel every
/// ``FriendManagerConfiguration/statsInterval`` and reads the connection's stats as often: a pair
/// that received nothing for ``FriendManagerConfiguration/pathLiveness`` is no path any more.
///
/// ```swift
/// try await client.connect()
/// let friends = FriendManager(client: client, engine: try await ChromiumMediaEngine.launch())
/// let events = friends.events()
/// try await friends.start()
/// for await event in events {
///     // .discoverabilityChanged(.udp, …), .pathsChanged(bob, .udpDirect), …
/// }
/// ```
///
/// The manager owns `engine`: it reads the engine's one event stream, so nothing else may.
public actor FriendManager {
    /// The XMPP client (connected before ``start()``).
    public let client: XMPPClient
    /// The media engine the friend connections run on.
    public let engine: any MediaEngine
    /// Timing and policies.
    public let configuration: FriendManagerConfiguration
    /// Counts since creation.
    public internal(set) var statistics = FriendManagerStatistics()
    /// Our discoverability; `nil` until the first round ends.
    public internal(set) var discoverability: SelfConnectionStatus?
    /// How long the offering side waits before offering again after a connection failed.
    public nonisolated let retryDelay: Duration = .seconds(2)

    let fanOut = EventFanOut<FriendManagerEvent>()
    let clock = ContinuousClock()
    let origin: ContinuousClock.Instant
    var tracker: FriendPathTracker
    /// When each connection's stats are read.
    let cadence: FriendStatsCadence
    var signalling: (any FriendSignalling)?
    var ownJID: JID?
    var peerConnection = PeerConnectionConfiguration()
    /// Friend connections by the friend's bare JID.
    var links: [JID: FriendLink] = [:]
    /// Which friend each peer connection belongs to.
    var owners: [PeerConnectionID: JID] = [:]
    var tasks: [Task<Void, Never>] = []
    var discoverabilityRun: FriendDiscoverabilityRun?
    /// What is reported as ``discoverability``: the probes' level, or `offline` while the XMPP
    /// stream is down for good.
    var publication = DiscoverabilityPublication()
    /// Waits ``FriendManagerConfiguration/offlineAfterStreamLoss`` after the stream dropped.
    var streamWatch: Task<Void, Never>?
    /// Asks the XMPP server again for TURN credentials at half their lifetime.
    var credentialRefresh: Task<Void, Never>?
    var started = false
    /// The paths of every friend together at the last change (losing them all starts a
    /// discoverability round, as a network change does).
    var pathsBefore: FriendConnectionPaths = []

    /// A manager for `client`'s friends on `engine`; nothing happens until ``start()``.
    public init(client: XMPPClient, engine: any MediaEngine, configuration: FriendManagerConfiguration = FriendManagerConfiguration()) {
        self.client = client
        self.engine = engine
        self.configuration = configuration
        origin = clock.now
        tracker = FriendPathTracker(consentTimeout: configuration.pathLiveness, backupTimeout: configuration.backupPathLiveness)
        cadence = FriendStatsCadence(interval: configuration.statsInterval)
    }

    /// A stream of every later event, in order.
    public nonisolated func events() -> AsyncStream<FriendManagerEvent> { fanOut.makeStream() }

    /// The current paths to `friend` (seed 003's `getFriendPaths(friendId:)`): empty when the
    /// friend is offline or no path works.
    public func paths(of friend: JID) -> FriendConnectionPaths { tracker.paths(of: friend) }

    /// The friends that have a friend connection now (the online ones), sorted.
    public var connectedFriends: [JID] { tracker.connectedFriends }

    /// Starts: asks the XMPP server for its STUN/TURN servers (XEP-0215), starts probing
    /// discoverability, and opens a friend connection to every online friend (and later to each
    /// friend who comes online). The client must be connected.
    public func start() async throws(FriendManagerError) {
        guard !started else { return }
        guard let own = await client.jid else { throw FriendManagerError(.notConnected, "connect the XMPP client before starting the friend manager") }
        let services: [ExternalService]
        do { services = try await client.externalServices() } catch {
            throw FriendManagerError(.externalServicesFailed, "the XMPP server's STUN/TURN servers: \(error)")
        }
        let servers = try FriendICEServers(services)
        started = true
        ownJID = own
        peerConnection = PeerConnectionConfiguration(iceServers: servers.urls, username: servers.username, credential: servers.password,
                                                     iceTransportPolicy: configuration.iceTransportPolicy)
        let carrier = XMPPFriendSignalling(client: client, codec: JingleFriendSignalCodec())
        signalling = carrier
        let signals = await carrier.incoming()
        let rosterEvents = client.events()
        let engineEvents = engine.events
        startDiscoverability(configuration.makeProber(servers.probeConfiguration))
        scheduleCredentialRefresh(servers)
        tasks.append(Task { [weak self] in
            for await (from, signal) in signals { await self?.receive(signal, from: from) }
        })
        tasks.append(Task { [weak self] in
            for await event in engineEvents { await self?.engineEvent(event) }
        })
        tasks.append(Task { [weak self] in
            for await event in rosterEvents { await self?.clientEvent(event) }
        })
        let interval = configuration.statsInterval
        tasks.append(Task { [weak self, clock] in
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                await self?.poll()
            }
        })
        for friend in await client.friends where friend.availability != .offline {
            perform(tracker.receive(.friendOnline(friend.jid), now: now), cause: .presence)
        }
    }

    /// Stops: closes every friend connection (telling each friend), stops probing. The XMPP
    /// client and the engine stay as they are.
    public func stop() async {
        guard started else { return }
        started = false
        for task in tasks { task.cancel() }
        tasks = []
        await signalling?.stopIncoming()
        discoverabilityRun?.cancel()
        discoverabilityRun = nil
        streamWatch?.cancel()
        streamWatch = nil
        credentialRefresh?.cancel()
        credentialRefresh = nil
        for friend in tracker.connectedFriends {
            perform(tracker.receive(.friendOffline(friend), now: now), cause: .presence)
        }
        fanOut.finish()
    }

    /// Monotonic time since the manager was made.
    var now: Duration { origin.duration(to: clock.now) }

    func yield(_ event: FriendManagerEvent) { fanOut.yield([event]) }
}
