import Observability

/// A subscriber's machine: the ``MediaConnectionMachine`` fed with a subscription's handle and
/// peer connection.
typealias SubscriberConnectionMachine = MediaConnectionMachine
/// A publisher's machine: the ``MediaConnectionMachine`` fed with the publishing peer
/// connection and the participant handle it publishes on.
typealias PublisherConnectionMachine = MediaConnectionMachine

/// One media connection's lifecycle — a subscriber's or the publisher's, the same rules for
/// both — as a value: inputs (engine and router events, stats samples, timers, the app ending
/// it) in, actions out. The caller performs the actions (emit an event, restart ICE, replace the
/// peer connection, arm a timer) outside any lock, and feeds their outcomes back as inputs.
///
/// Media stopping is seen in stats first (a 4–6 s blackout keeps Chromium's ICE `connected`
/// while the selected pair's counters stop), so the machine reports `didDisconnect` when the
/// selected pair's received bytes and STUN responses have been flat for
/// ``Settings/stallThreshold``, or when ICE says `disconnected`/`failed`, whichever comes first.
/// It then restarts ICE (again, sooner, when the path answers STUN but carries nothing for
/// ``Settings/silentPathThreshold``), replaces the peer connection after a router hangup or
/// failed restarts, reports `didReconnect` when bytes arrive again on the current connection,
/// and destroys the stream when the reconnect window runs out. Exactly one terminal outcome:
/// the app ended it (``Input/unsubscribe``), the stream is gone, or the window expired.
///
/// The roles differ only in what the caller does with the actions. A subscriber's received
/// bytes are the media; a publisher's are the router's RTCP and consent responses, which stop
/// as surely when its path is lost (its own sent bytes do not: it keeps sending into the void).
/// A subscriber's ICE restart is the router's offer (`configure` with `restart`); a publisher's
/// is its own offer with new credentials. A subscriber's replacement is a new subscription
/// handle; a publisher's is a republish on a new participant handle.
struct MediaConnectionMachine: Sendable {
    /// Timings.
    struct Settings: Hashable, Sendable {
        /// No progress on the selected pair for this long means the media path is lost.
        var stallThreshold: Duration
        /// How long one ICE restart may take before the next step.
        var restartTimeout: Duration
        /// ICE restarts before the peer connection is replaced.
        var maximumRestarts: Int
        /// How long it may stay disconnected before its stream is destroyed.
        var reconnectWindow: Duration
        /// While disconnected, the selected pair answering STUN but carrying no bytes for this
        /// long means the path is back but the restart did not take: ICE is restarted again
        /// then, without waiting for ``restartTimeout``.
        var silentPathThreshold: Duration

        /// Creates settings: 3 s stall, 5 s per restart, 2 restarts, a 30 s window, 2 s of a
        /// silent path.
        init(stallThreshold: Duration = .seconds(3), restartTimeout: Duration = .seconds(5),
                    maximumRestarts: Int = 2, reconnectWindow: Duration = .seconds(30),
                    silentPathThreshold: Duration = .seconds(2)) {
            self.stallThreshold = stallThreshold
            self.restartTimeout = restartTimeout
            self.maximumRestarts = maximumRestarts
            self.reconnectWindow = reconnectWindow
            self.silentPathThreshold = silentPathThreshold
        }
    }

    /// The timers the machine arms.
    enum TimerKind: Hashable, Sendable {
        /// An ICE restart's time is up.
        case restartTimeout
        /// The reconnect window is over.
        case reconnectWindow
    }

    /// A timer: kind plus a generation, so a timer armed before a state change is ignored.
    struct TimerID: Hashable, Sendable {
        /// What the timer is for.
        var kind: TimerKind
        /// The machine's generation when it was armed.
        var generation: Int
    }

    /// What the machine is told.
    enum Input: Hashable, Sendable {
        /// The peer connection and router handle now in use (first, or after a replacement).
        case peerConnectionStarted(PeerConnectionID, RouterHandleID)
        /// The router sent an offer on a handle (a renegotiation is under way).
        case offerReceived(RouterHandleID)
        /// Our answer on a peer connection reached the router (a publisher: the router's answer
        /// to our offer is set); the negotiation is over.
        case answerSent(PeerConnectionID)
        /// ICE state of a peer connection.
        case iceState(PeerConnectionID, IceConnectionState)
        /// The router says the handle's peer connection is up.
        case routerMediaUp(RouterHandleID)
        /// The router closed a handle's peer connection.
        case routerHangup(RouterHandleID)
        /// A stats sample of a peer connection: the selected pair's received bytes and STUN
        /// responses (cumulative).
        case statsSample(PeerConnectionID, bytesReceived: Double, responsesReceived: Double)
        /// A timer fired.
        case timerFired(TimerID)
        /// The app ended it: unsubscribed (a publisher: unpublished).
        case unsubscribe
        /// The router says the stream is gone (publisher unpublished or left).
        case streamGone
        /// The other side asks for an ICE restart on a handle (a relayed subscriber asks its
        /// publisher).
        case restartRequested(RouterHandleID)
        /// An ICE restart on the handle could not even begin: the engine refused to make the
        /// restart offer (its peer connection is closed or lost under us). No restart can
        /// bring it back: it is replaced now, as after a router hangup.
        case restartImpossible(RouterHandleID)
    }

    /// What the caller must do.
    enum Action: Hashable, Sendable {
        /// Deliver a lifecycle event (a publisher delivers its own ``CallPublisherEvent`` of the kind).
        case emit(CallSubscriberEvent.Kind)
        /// Restart ICE on the handle's peer connection (a subscriber: ask the router, `configure`
        /// with `restart: true`; a publisher: offer with new credentials).
        case restartIce(RouterHandleID)
        /// Close this peer connection and handle and subscribe (publish) again on a new handle;
        /// then feed
        /// ``Input/peerConnectionStarted(_:_:)``.
        case replacePeerConnection(PeerConnectionID, RouterHandleID)
        /// Fire ``Input/timerFired(_:)`` with `id` at `deadline` (on the machine's clock).
        case armTimer(TimerID, deadline: Duration)
        /// The stream could not be restored: tell the app `streamDestroyed`.
        case destroyStream
        /// Close the peer connection and the handle; nothing more will come.
        case tearDown(PeerConnectionID?, RouterHandleID?)
    }

    enum Phase: Hashable, Sendable {
        case connecting
        case connected
        case disconnected(since: Duration, restarts: Int)
        case ended
    }

    /// Timings.
    let settings: Settings
    private(set) var phase = Phase.connecting
    private(set) var peerConnection: PeerConnectionID?
    private(set) var handle: RouterHandleID?
    private var negotiation = Negotiation()
    private var generation = 0
    private var pair = SelectedPairWatch()
    private var restarts = RestartTimes()
    /// Inputs about an older peer connection or handle, or after the end: ignored, counted.
    private(set) var staleInputs = 0

    /// A machine for a subscriber or publisher that is starting.
    init(settings: Settings = .init()) { self.settings = settings }

    /// Whether it has ended (the app ended it, stream gone or window expired).
    var isEnded: Bool { phase == .ended }

    /// Feeds one input at `now` (the injected clock's time since the session started).
    mutating func receive(_ input: Input, now: Duration) -> [Action] {
        if phase == .ended {
            staleInputs += 1
            return []
        }
        switch input {
        case .peerConnectionStarted(let pc, let newHandle):
            peerConnection = pc
            handle = newHandle
            negotiation.underWay = true
            pair.bytes = nil
            pair.responses = nil
            pair.lastProgress = now
            return []
        case .offerReceived(let from):
            guard from == handle else { return stale() }
            negotiation.underWay = true
            return []
        case .answerSent(let pc):
            guard pc == peerConnection else { return stale() }
            negotiation.underWay = false
            pair.silentSince = nil
            if negotiation.restartPending, let handle {
                negotiation.restartPending = false
                return [.restartIce(handle)]
            }
            return []
        case .iceState(let pc, let state):
            guard pc == peerConnection else { return stale() }
            switch (phase, state) {
            case (.connecting, .connected), (.connecting, .completed):
                return connect(now: now)
            case (.connected, .disconnected), (.connected, .failed):
                return disconnect(now: now)
            default:
                return []
            }
        case .routerMediaUp(let from):
            guard from == handle else { return stale() }
            return phase == .connecting ? connect(now: now) : []
        case .routerHangup(let from), .restartImpossible(let from):
            guard from == handle else { return stale() }
            var actions: [Action] = []
            if phase == .connected { actions += disconnect(now: now, restart: false) }
            return actions + replace()
        case .statsSample(let pc, let bytes, let responses):
            guard pc == peerConnection else { return stale() }
            let bytesRose = Self.counted(bytes, since: pair.bytes)
            let answered = Self.counted(responses, since: pair.responses)
            let progressed = bytesRose || answered
            pair.bytes = bytes
            pair.responses = responses
            if progressed { pair.lastProgress = now }
            switch phase {
            case .connecting:
                return bytesRose ? connect(now: now) : []
            case .connected:
                if let lastProgress = pair.lastProgress, now - lastProgress >= settings.stallThreshold { return disconnect(now: now) }
                return []
            case .disconnected:
                guard bytesRose else { return restartIfSilent(answered: answered, now: now) }
                phase = .connected
                generation += 1
                pair.silentSince = nil
                return [.emit(.didReconnect)]
            case .ended:
                return []
            }
        case .timerFired(let id):
            guard id.generation == generation, case .disconnected(let since, let restarts) = phase else { return stale() }
            switch id.kind {
            case .reconnectWindow:
                return expire()
            case .restartTimeout:
                // A restart step due when the window is over (both timers at the same instant,
                // delivered in either order) ends it as the window does: no last republish.
                if now - since >= settings.reconnectWindow { return expire() }
                if restarts < settings.maximumRestarts {
                    phase = .disconnected(since: since, restarts: restarts + 1)
                    return restart(now: now)
                }
                phase = .disconnected(since: since, restarts: 0)
                return replace() + [.armTimer(TimerID(kind: .restartTimeout, generation: generation), deadline: now + settings.restartTimeout)]
            }
        case .unsubscribe, .streamGone:
            phase = .ended
            return [.tearDown(peerConnection, handle)]
        case .restartRequested(let from):
            guard from == handle else { return stale() }
            return restartOnRequest(now: now)
        }
    }

    /// The other side saw the path lost (or we did not yet): restart now, once. A restart
    /// within ``Settings/silentPathThreshold`` already answers it (both sides see the same
    /// silence at about the same time), and a negotiation under way will end in a restart or
    /// has one pending. The phase does not change: stats say whether media stopped.
    private mutating func restartOnRequest(now: Duration) -> [Action] {
        guard let handle, !negotiation.underWay, !negotiation.restartPending else { return [] }
        if let last = restarts.last, now - last < settings.silentPathThreshold { return [] }
        restarts.last = now
        restarts.lastRequested = now
        pair.silentSince = nil
        return [.restartIce(handle)]
    }

    private mutating func connect(now: Duration) -> [Action] {
        phase = .connected
        pair.lastProgress = now
        return [.emit(.didConnect)]
    }

    private mutating func disconnect(now: Duration, restart: Bool = true) -> [Action] {
        phase = .disconnected(since: now, restarts: 0)
        generation += 1
        var actions: [Action] = [.emit(.didDisconnect),
                                 .armTimer(TimerID(kind: .reconnectWindow, generation: generation), deadline: now + settings.reconnectWindow)]
        // A restart the other side asked for moments ago is this disconnection's restart: a
        // second one would only throw away the checks of the first.
        let requestedJustBefore = restarts.lastRequested.map { now - $0 < settings.silentPathThreshold } ?? false
        if restart && !requestedJustBefore {
            actions += self.restart(now: now)
        } else if restart {
            actions.append(.armTimer(TimerID(kind: .restartTimeout, generation: generation), deadline: now + settings.restartTimeout))
        }
        return actions
    }

    private mutating func restart(now: Duration) -> [Action] {
        pair.silentSince = nil
        var actions: [Action] = [.armTimer(TimerID(kind: .restartTimeout, generation: generation), deadline: now + settings.restartTimeout)]
        guard let handle else { return actions }
        restarts.last = now
        if negotiation.underWay {
            negotiation.restartPending = true      // Janus postpones a restart while an answer is pending; so do we
        } else {
            actions.insert(.restartIce(handle), at: 0)
        }
        return actions
    }

    /// Disconnected, no bytes: a path that answers STUN (responses counted) but has carried
    /// nothing for ``Settings/silentPathThreshold`` since the last restart or negotiation is
    /// back, and the restart did not take (seen with Janus: the new pair's first check answered,
    /// then silence until the next restart). Restart again now, uncounted: the restart timer
    /// keeps its pace.
    private mutating func restartIfSilent(answered: Bool, now: Duration) -> [Action] {
        guard !negotiation.underWay, !negotiation.restartPending, let handle else { return [] }
        guard let since = pair.silentSince else {
            if answered { pair.silentSince = now }
            return []
        }
        guard now - since >= settings.silentPathThreshold else { return [] }
        pair.silentSince = nil
        restarts.last = now
        return [.restartIce(handle)]
    }

    private mutating func expire() -> [Action] {
        phase = .ended
        return [.destroyStream, .tearDown(peerConnection, handle)]
    }

    private mutating func replace() -> [Action] {
        guard let peerConnection, let handle else { return [] }
        negotiation.restartPending = false
        self.peerConnection = nil
        self.handle = nil
        return [.replacePeerConnection(peerConnection, handle)]
    }

    /// Whether a cumulative counter of the selected pair counted something since `last`: it
    /// rose, or it is lower because it is another pair's (an ICE restart selects a new pair,
    /// whose counters start at zero) and that pair has counted something already.
    private static func counted(_ value: Double, since last: Double?) -> Bool {
        guard let last else { return false }
        return value > last || (value < last && value > 0)
    }

    private mutating func stale() -> [Action] {
        staleInputs += 1
        return []
    }
}

extension MediaConnectionMachine {
    /// Whether a negotiation is under way, and a restart waits for its end.
    struct Negotiation: Hashable, Sendable {
        var underWay = false
        /// Janus postpones a restart while an answer is pending; so do we.
        var restartPending = false
    }

    /// When ICE was last restarted (or a restart was made pending), and when last at the other
    /// side's request.
    struct RestartTimes: Hashable, Sendable {
        var last: Duration?
        var lastRequested: Duration?
    }

    /// The selected pair's counters at the last sample, and when they last moved.
    struct SelectedPairWatch: Hashable, Sendable {
        var bytes: Double?
        var responses: Double?
        var lastProgress: Duration?
        /// While disconnected: when the selected pair first answered STUN without bytes since
        /// the last restart or negotiation.
        var silentSince: Duration?
    }
}
