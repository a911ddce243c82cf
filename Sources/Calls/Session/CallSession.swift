import CallScopeCore
import Observability
import Foundation
import RTCStats

/// A routed call (docs/spec/sessions.md §1): joins a room through a ``Signaling``, publishes and
/// subscribes through a ``MediaEngine``, and tells its delegate and ``events`` what happens.
///
/// The session keeps the room (roster, our connection), routes engine and router events to the
/// media connection they concern (one controller per subscription and one for the publication),
/// samples their stats, and delivers events. Calls does no I/O and reads no clock of its own:
/// timers run on the clock passed in (`ContinuousClock` in an app, `ManualClock` in tests),
/// stream creation times come from `wallClock`.
public actor CallSession {
    let dependencies: SessionDependencies
    private let fanOut = EventFanOut<CallSessionEvent>()
    var delivery = SessionDelivery()
    /// The room, while connected.
    var room: JoinedRoom?
    var publication: PublicationController?
    /// A relayed call's publication (``MeshSignaling``): one media connection per subscriber.
    var relayedPublication: RelayedPublicationController?
    /// In the order they were subscribed.
    var subscriptions: [SubscriptionController] = []
    private var pumps: [Task<Void, Never>] = []
    /// Checks whether dropped streams still publish (``reofferIfStillPublished(_:)``).
    var reofferTasks: [Task<Void, Never>] = []
    var discoverabilityRun: DiscoverabilityRun?
    /// Relayed calls: the links this device receives on, shared by its subscribers' monitors.
    let relayedLinks = RelayedLinkBoard()

    /// Creates a session; nothing happens until ``connect(display:)``.
    /// - Parameters:
    ///   - clock: the clock timers run on (stats sampling, reconnect window).
    ///   - wallClock: the time stamped on new connections and streams.
    ///   - discoverability: measures ``connectionState`` while connected; `nil` for none.
    public init<C: Clock>(signaling: any Signaling, engine: any MediaEngine, clock: C,
                          wallClock: @escaping @Sendable () -> Date,
                          configuration: CallSessionConfiguration = .init(),
                          discoverability: SessionDiscoverability? = nil) where C.Duration == Duration {
        dependencies = SessionDependencies(signaling: signaling, engine: engine, timer: CallTimer(clock), wallClock: wallClock,
                                           configuration: configuration, discoverability: discoverability)
    }

    /// How the session behaves.
    public nonisolated var configuration: CallSessionConfiguration { dependencies.configuration }
    var signaling: any Signaling { dependencies.signaling }
    var engine: any MediaEngine { dependencies.engine }
    var timer: CallTimer { dependencies.timer }
    var wallClock: @Sendable () -> Date { dependencies.wallClock }
    var discoverability: SessionDiscoverability? { dependencies.discoverability }
    /// Told of every input of the stats monitors (``setStatsRecorder(_:)``).
    var statsRecorder: (@Sendable (CallStatsRecord) -> Void)? {
        get { delivery.statsRecorder }
        set { delivery.statsRecorder = newValue }
    }

    /// Every later session event (a new stream per access).
    public nonisolated var events: AsyncStream<CallSessionEvent> { fanOut.makeStream() }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any CallSessionDelegate)?) { delivery.delegate = WeakSessionDelegate(delegate) }

    /// Our own connection, once connected.
    public var connection: CallConnection? { room?.own }

    /// The other participants' streams now in the session.
    public var streams: [CallStream] {
        (room?.roster.streams.values).map { $0.sorted { $0.streamId < $1.streamId } } ?? []
    }

    /// Whether the session is connected.
    public var isConnected: Bool { room != nil }

    /// Where our candidates go (nothing is kept while not connected).
    var trickle: TrickleRouter {
        get { room?.trickle ?? TrickleRouter() }
        set { room?.trickle = newValue }
    }

    // MARK: - Connect and disconnect

    /// Joins the room; the participants already there (publishing or not, where the router lists
    /// them) arrive as `participantDidConnect` and their streams as `streamCreated` after
    /// `didConnect`.
    public func connect(display: String? = nil) async throws(CallError) {
        guard room == nil else { return }
        let join: RoomJoin
        do {
            join = try await signaling.join(display: display)
        } catch {
            throw CallError.wrapping(error, "join")
        }
        let own = CallConnection(connectionId: join.participantID.rawValue, creationTime: wallClock(), data: display)
        room = JoinedRoom(own: own, roster: RoomRoster(own: join.participantID))
        trickle.participantHandle = join.participantHandle
        startPumps()
        startDiscoverability()
        var events: [CallSessionEvent] = [.didConnect(own)]
        events += room?.roster.joined(join, now: wallClock()) ?? []
        deliver(events)
    }

    /// Leaves the room: every subscriber and the publisher stop, the remaining streams are
    /// destroyed (`sessionEnded`), then `didDisconnect`.
    public func disconnect() async {
        guard room != nil else { return }
        await endSession()
        await signaling.leave()
    }

    func endSession() async {
        guard var room else { return }
        self.room = nil
        for task in pumps + reofferTasks { task.cancel() }
        pumps.removeAll()
        reofferTasks.removeAll()
        stopDiscoverability()
        for subscription in subscriptions { await subscription.close(in: self) }
        if let publication { await publication.close(.dropped, in: self) }
        await relayedPublication?.close(unpublished: false, in: self)
        deliver(room.roster.clear() + [.didDisconnect])
    }

    // MARK: - Routing

    private func startPumps() {
        let engineEvents = engine.events
        let signalingEvents = signaling.events
        pumps = [
            Task { [weak self] in
                for await event in engineEvents { await self?.receive(event) }
            },
            Task { [weak self] in
                for await event in signalingEvents { await self?.receive(event) }
            },
            every(configuration.statsInterval) { await $0.sampleStats() },
        ]
        if let health = configuration.subscriberHealthInterval {
            pumps.append(every(health) { await $0.checkHealth() })
        }
    }

    /// A task that runs `body` every `interval` on the session's clock while connected.
    private func every(_ interval: Duration, _ body: @escaping @Sendable (CallSession) async -> Void) -> Task<Void, Never> {
        let timer = self.timer
        return Task { [weak self] in
            var next = timer.elapsed
            while !Task.isCancelled {
                next += interval
                do { try await timer.sleep(untilElapsed: next) } catch { return }
                guard let self, await self.isConnected else { return }
                await body(self)
            }
        }
    }

    func receive(_ event: MediaEngineEvent) async {
        if case .candidate(let pc, let candidate) = event {
            if let handle = trickle.route(candidate, from: pc) { try? await signaling.trickle(candidate, on: handle) }
            return
        }
        guard let pc = event.peerConnection else { return }
        if let publication, publication.peerConnection == pc {
            await publication.receive(event, in: self)
        } else if let link = relayedPublication?.link(on: pc) {
            await link.receive(event, in: self)
        } else if let subscription = subscription(on: pc) {
            await subscription.receive(event, in: self)
        }
    }

    func receive(_ event: SignalingEvent) async {
        await relayedPublication?.receive(event, in: self)
        switch event {
        case .feedsPublished(let feeds):
            await roomChanged(.feedsPublished(feeds))
        case .feedUnpublished(let id):
            await roomChanged(.feedUnpublished(id))
        case .participantJoined(let id, let display):
            await roomChanged(.participantJoined(id, display: display))
        case .participantLeft(let id):
            await roomChanged(.participantLeft(id))
        case .sessionLost(let reason):
            await rejoin(after: reason)
        case .offer(let handle, _), .mediaUp(let handle), .hangup(let handle, _), .forwardedLayerChanged(let handle, _, _, _):
            if let publication, publication.connection.handle == handle {
                await publication.receive(event, in: self)
            } else if let subscription = subscription(on: handle) {
                await subscription.receive(event, in: self)
            }
        case .remoteCandidate(let handle, let candidate):
            await connectionController(on: handle)?.addRemoteCandidate(candidate, in: self)
        case .iceRestartRequested(let handle):
            connectionController(on: handle)?.requestRestart(on: handle, in: self)
        case .replacementRequested(let handle):
            connectionController(on: handle)?.requestReplacement(on: handle, in: self)
        }
    }

    private func roomChanged(_ input: RoomRoster.Input) async {
        guard let events = room?.roster.receive(input, now: wallClock()) else { return }
        // A subscriber's stream that left ends the subscriber first: nothing reaches it after.
        await closeSubscriptions(to: events)
        deliver(events)
    }

    /// Closes the subscriptions to every stream `events` destroys.
    func closeSubscriptions(to events: [CallSessionEvent]) async {
        for case .streamDestroyed(let stream, _) in events {
            for subscription in subscriptions where subscription.stream.streamId == stream.streamId {
                await subscription.close(in: self)
            }
        }
    }

    // MARK: - Stats

    func sampleStats() async {
        await publication?.sample(in: self)
        await relayedPublication?.sample(in: self)
        for subscription in subscriptions { await subscription.sample(in: self) }
    }

    /// Between stats samples: each media connection's selected-pair progress, for its
    /// lifecycle only.
    func checkHealth() async {
        for subscription in subscriptions { await subscription.checkHealth(in: self) }
        await publication?.checkHealth(in: self)
        await relayedPublication?.checkHealth(in: self)
    }

    // MARK: - Delivery

    func deliver(_ roomEvents: [CallSessionEvent]) {
        delivery.deliver(roomEvents, for: self, to: fanOut)
    }
}
