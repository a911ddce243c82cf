import CallScopeCore
import Observability
import Foundation
import RTCStats

/// A routed call (seed 004's `OTSession`): joins a room through a ``Signaling``, publishes and
/// subscribes through a ``MediaEngine``, and tells its delegate and ``events`` what happens.
///
/// Calls does no I/O and reads no clock of its own: timers run on the clock passed in
/// (`ContinuousClock` in an app, `ManualClock` in tests), stream creation times come from
/// `wallClock`.
public actor CallSession {
    /// How the session behaves.
    public nonisolated let configuration: CallSessionConfiguration
    let signaling: any Signaling
    let engine: any MediaEngine
    let timer: CallTimer
    let wallClock: @Sendable () -> Date
    private let fanOut = EventFanOut<CallSessionEvent>()
    private var storedDelegate = WeakSessionDelegate(nil)

    /// Our own connection, once connected.
    public internal(set) var connection: CallConnection?
    var roster: RoomRoster?
    var trickle = TrickleRouter()
    var publishing: PublishingState?
    var subscriptions: [ObjectIdentifier: SubscriptionState] = [:]
    var subscriptionsByPeer: [PeerConnectionID: ObjectIdentifier] = [:]
    var subscriptionsByHandle: [RouterHandleID: ObjectIdentifier] = [:]
    private var pumps: [Task<Void, Never>] = []
    var statsRecorder: (@Sendable (CallStatsRecord) -> Void)?
    var timers: [ObjectIdentifier: [Task<Void, Never>]] = [:]
    var participantBook = ParticipantBook()
    var qualityWatchers: [ObjectIdentifier: Task<Void, Never>] = [:]
    let discoverability: SessionDiscoverability?
    var discoverabilityRun: DiscoverabilityRun?

    /// Creates a session; nothing happens until ``connect(display:)``.
    /// - Parameters:
    ///   - clock: the clock timers run on (stats sampling, reconnect window).
    ///   - wallClock: the time stamped on new connections and streams.
    ///   - discoverability: measures ``connectionState`` while connected; `nil` for none.
    public init<C: Clock>(signaling: any Signaling, engine: any MediaEngine, clock: C,
                          wallClock: @escaping @Sendable () -> Date,
                          configuration: CallSessionConfiguration = .init(),
                          discoverability: SessionDiscoverability? = nil) where C.Duration == Duration {
        self.discoverability = discoverability
        self.signaling = signaling
        self.engine = engine
        timer = CallTimer(clock)
        self.wallClock = wallClock
        self.configuration = configuration
    }

    /// Every later session event (a new stream per access).
    public nonisolated var events: AsyncStream<CallSessionEvent> { fanOut.makeStream() }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any CallSessionDelegate)?) { storedDelegate = WeakSessionDelegate(delegate) }

    /// The other participants' streams now in the session.
    public var streams: [CallStream] {
        (roster?.streams.values).map { $0.sorted { $0.streamId < $1.streamId } } ?? []
    }

    /// Whether the session is connected.
    public var isConnected: Bool { connection != nil }

    // MARK: - Connect and disconnect

    /// Joins the room; the streams already there arrive as `streamCreated` after `didConnect`.
    public func connect(display: String? = nil) async throws(CallError) {
        guard connection == nil else { return }
        let join: RoomJoin
        do {
            join = try await signaling.join(display: display)
        } catch {
            throw CallError.wrapping(error, "join")
        }
        let own = CallConnection(connectionId: join.participantID.rawValue, creationTime: wallClock(), data: display)
        connection = own
        roster = RoomRoster(own: join.participantID)
        trickle.participantHandle = join.participantHandle
        startPumps()
        startDiscoverability()
        var events: [CallSessionEvent] = [.didConnect(own)]
        events += roster?.receive(.feedsPublished(join.feeds), now: wallClock()) ?? []
        deliver(events)
    }

    /// Leaves the room: every subscriber and the publisher stop, the remaining streams are
    /// destroyed (`sessionEnded`), then `didDisconnect`.
    public func disconnect() async {
        guard connection != nil else { return }
        await endSession()
        await signaling.leave()
    }

    func endSession() async {
        guard connection != nil else { return }
        connection = nil
        for task in pumps { task.cancel() }
        pumps.removeAll()
        stopDiscoverability()
        for (key, state) in subscriptions {
            await tearDown(state)
            forget(key)
        }
        if let publishing {
            cancelPublisherTimers(publishing.publisher)
            try? await engine.closePeerConnection(publishing.peerConnection)
            publishing.publisher.setStream(nil)
            self.publishing = nil
        }
        let events = (roster?.clear() ?? []) + [.didDisconnect]
        roster = nil
        deliver(events)
    }

    // MARK: - Event pumps

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
            Task { [weak self] in
                guard let interval = self?.configuration.statsInterval, var next = self?.timer.elapsed else { return }
                while !Task.isCancelled {
                    next += interval
                    do { try await self?.timer.sleep(untilElapsed: next) } catch { return }
                    guard let self, await self.isConnected else { return }
                    await self.sampleStats()
                }
            },
        ]
        if let health = configuration.subscriberHealthInterval {
            pumps.append(Task { [weak self] in
                guard var next = self?.timer.elapsed else { return }
                while !Task.isCancelled {
                    next += health
                    do { try await self?.timer.sleep(untilElapsed: next) } catch { return }
                    guard let self, await self.isConnected else { return }
                    await self.checkSubscriberHealth()
                    await self.checkPublisherHealth()
                }
            })
        }
    }

    func receive(_ event: MediaEngineEvent) async {
        switch event {
        case .candidate(let pc, let candidate):
            if let handle = trickle.route(candidate, from: pc) {
                try? await signaling.trickle(candidate, on: handle)
            }
        default:
            if await publisherReceived(event) { return }
            if let pc = event.peerConnection, let key = subscriptionsByPeer[pc] {
                await subscriptionReceived(event, key: key)
            }
        }
    }

    func receive(_ event: SignalingEvent) async {
        switch event {
        case .feedsPublished(let feeds):
            await roomChanged(.feedsPublished(feeds))
        case .feedUnpublished(let id):
            await roomChanged(.feedUnpublished(id))
        case .participantJoined(let id, let display):
            await roomChanged(.participantJoined(id, display: display))
        case .participantLeft(let id):
            await roomChanged(.participantLeft(id))
        case .offer(let handle, let offer):
            if let key = subscriptionsByHandle[handle] { await renegotiate(key, offer: offer) }
        case .mediaUp(let handle):
            if await publisherReceived(event) { return }
            if let key = subscriptionsByHandle[handle] { await subscriptionMediaUp(key) }
        case .hangup(let handle, _):
            if await publisherReceived(event) { return }
            if let key = subscriptionsByHandle[handle] { await subscriptionHungUp(key, handle: handle) }
        case .sessionLost(let reason):
            await rejoin(after: reason)
        case .forwardedLayerChanged(let handle, _, let substream, let temporal):
            if let key = subscriptionsByHandle[handle] { forwardedLayerChanged(key, substream: substream, temporal: temporal) }
        }
    }

    private func roomChanged(_ input: RoomRoster.Input) async {
        guard var roster else { return }
        let events = roster.receive(input, now: wallClock())
        self.roster = roster
        // A subscriber's stream that left ends the subscriber first: nothing reaches it after.
        for case .streamDestroyed(let stream, _) in events {
            for (key, state) in subscriptions where state.subscriber.stream.streamId == stream.streamId {
                await tearDown(state)
                forget(key)
            }
        }
        deliver(events)
    }

    // MARK: - Stats

    func sampleStats() async {
        await applyPublishVideo()
        if let publishing {
            if let report = try? await engine.stats(of: publishing.peerConnection) {
                let outgoing = SenderStatsOutbox()
                if publishing.publisher.settings.senderStatsTrack {
                    let send: @Sendable ([UInt8]) -> Void = { bytes in outgoing.put(bytes) }
                    publishing.publisher.statsMonitor.senderStatsSender = send
                }
                statsRecorder?(.publisherSample(peerConnection: publishing.peerConnection.rawValue, report: report))
                if self.publishing?.peerConnection == publishing.peerConnection {
                    _ = self.publishing?.paths.receive(report)
                    publishing.publisher.statsMonitor.senderStatsPaths = self.publishing?.paths.paths.senderStatsPaths
                }
                publishing.publisher.statsMonitor.ingest(report, peerConnection: publishing.peerConnection.rawValue)
                if let message = outgoing.take().map({ Self.stating(videoEnabled: publishing.videoEnabled, in: $0) }) {
                    try? await engine.sendData(String(decoding: message, as: UTF8.self), label: CallPublisher.senderStatsChannel,
                                               on: publishing.peerConnection)
                }
                await publisherSampled(report, peerConnection: publishing.peerConnection)
            }
        }
        for (key, state) in subscriptions {
            guard let pc = state.machine.peerConnection, let report = try? await engine.stats(of: pc) else { continue }
            // The subscriber may have gone, or changed peer connection, while we waited.
            guard let current = subscriptions[key], current.machine.peerConnection == pc else { continue }
            watchConnectionQuality(key, current.subscriber)
            statsRecorder?(.subscriberSample(stream: current.subscriber.stream, peerConnection: pc.rawValue, report: report))
            let callbacks = current.subscriber.statsMonitor.ingestReturningCallbacks(report, peerConnection: pc.rawValue)
            samplePaths(report, key: key, subscriber: current.subscriber, peerConnection: pc)
            decodedVideo(report, subscriber: current.subscriber)
            let pair = SelectedPairProgress(report)
            await adapt(key, callbacks: callbacks, pairBytes: pair.bytesReceived, reportTime: report.timestamp ?? wallClock().timeIntervalSince1970 * 1000)
            await feed(key, .statsSample(pc, bytesReceived: pair.bytesReceived, responsesReceived: pair.responsesReceived))
        }
    }

    /// Between stats samples: each subscriber's selected-pair progress, for its machine only.
    func checkSubscriberHealth() async {
        for (key, state) in subscriptions {
            guard let pc = state.machine.peerConnection, let report = try? await engine.stats(of: pc) else { continue }
            guard let current = subscriptions[key], current.machine.peerConnection == pc else { continue }
            samplePaths(report, key: key, subscriber: current.subscriber, peerConnection: pc)
            let pair = SelectedPairProgress(report)
            await feed(key, .statsSample(pc, bytesReceived: pair.bytesReceived, responsesReceived: pair.responsesReceived))
        }
    }

    // MARK: - Delivery

    func deliver(_ roomEvents: [CallSessionEvent]) {
        let events = participantBook.expand(roomEvents)
        guard !events.isEmpty else { return }
        if let delegate = storedDelegate.object {
            for event in events {
                switch event {
                case .didConnect: delegate.sessionDidConnect(self)
                case .streamCreated(let stream): delegate.session(self, streamCreated: stream)
                case .streamDestroyed(let stream, let reason): delegate.session(self, streamDestroyed: stream, reason: reason)
                case .connectionCreated(let connection): delegate.session(self, connectionCreated: connection)
                case .connectionDestroyed(let connection): delegate.session(self, connectionDestroyed: connection)
                case .didDisconnect: delegate.sessionDidDisconnect(self)
                case .didFail(let error): delegate.session(self, didFailWithError: error)
                case .participantDidConnect(let participant): delegate.session(self, participantDidConnect: participant)
                case .participantDidDisconnect(let participant): delegate.session(self, participantDidDisconnect: participant)
                case .participantPathsChanged(let participant): delegate.session(self, didUpdatePaths: participant)
                case .participantConnectionQualityChanged(let participant): delegate.session(self, didUpdateConnectionQuality: participant)
                case .connectionStateChanged(let state): delegate.session(self, didUpdateConnectionState: state)
                case .streamVideoDimensionsChanged(let stream): delegate.session(self, streamVideoDimensionsChanged: stream)
                }
            }
        }
        fanOut.yield(events)
    }
}

/// Holds the sender-stats message a monitor produced during one `ingest`.
final class SenderStatsOutbox: Sendable {
    private let message = Locked<[UInt8]?>(nil)
    func put(_ bytes: [UInt8]) { message.withLock { $0 = bytes } }
    func take() -> [UInt8]? { message.withLock { $0 } }
}
