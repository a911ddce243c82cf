import Connectivity
import FriendConnections

/// The running discoverability: the machine, the prober, its timer and network watch.
struct FriendDiscoverabilityRun: Sendable {
    var machine: DiscoverabilityStateMachine
    /// Which path changes start a round.
    var witness = FriendPathsWitness()
    /// Replaced when the TURN credentials are refreshed (the machine and its level stay).
    var probing: any DiscoverabilityProbing
    var timerTask: Task<Void, Never>?
    var changesTask: Task<Void, Never>?

    func cancel() {
        timerTask?.cancel()
        changesTask?.cancel()
    }
}

// MARK: - Discoverability, with no call

extension FriendManager {
    /// Starts the rounds: now, then every ``FriendManagerConfiguration/discoverabilityInterval``,
    /// and at once on every network change the prober sees.
    func startDiscoverability(_ probing: any DiscoverabilityProbing) {
        let machine = DiscoverabilityStateMachine(configuration: .init(
            reevaluationInterval: configuration.discoverabilityInterval, confirmationRounds: configuration.confirmationRounds,
            tcpRelayConfigured: probing.tcpRelayConfigured))
        discoverabilityRun = FriendDiscoverabilityRun(machine: machine, probing: probing)
        if let changes = probing.networkChanges() {
            discoverabilityRun?.changesTask = Task { [weak self] in
                for await _ in changes { await self?.networkChanged() }
            }
        }
        discoverabilityInput(.start)
    }

    /// One input to the machine; its actions run here (probes and the timer as tasks that come
    /// back with their input).
    func discoverabilityInput(_ input: DiscoverabilityStateMachine.Input) {
        guard discoverabilityRun != nil else { return }
        let actions = discoverabilityRun!.machine.receive(input, now: now)
        if actions.contains(where: { if case .runProbe = $0 { false } else { true } }) { discoverabilityRun?.witness.roundEnded() }
        for action in actions {
            switch action {
            case .runProbe(let probe, let round):
                let probing = discoverabilityRun!.probing
                Task { [weak self] in
                    let result = await probing.probe(probe)
                    await self?.discoverabilityInput(.probeFinished(round: round, result))
                }
            case .scheduleRound(let deadline):
                discoverabilityRun?.timerTask?.cancel()
                let delay = deadline - now
                discoverabilityRun?.timerTask = Task { [weak self, clock] in
                    try? await clock.sleep(for: delay)
                    guard !Task.isCancelled else { return }
                    await self?.discoverabilityInput(.timerFired)
                }
            case .statusChanged(let status, let evidence):
                if let reported = publication.measured(status, evidence) { report(reported) }
            }
        }
    }

    /// Friend paths changed: losing every path to every friend starts a round at once (a
    /// firewall changes no interface) unless the round an earlier loss started still runs, and
    /// getting one back that proves a better level than the adopted one does too
    /// (``FriendPathsWitness``).
    func pathsChanged(cause: FriendPathCause) {
        let paths = tracker.connectedFriends.reduce(into: FriendConnectionPaths()) { $0.formUnion(tracker.paths(of: $1)) }
        defer { pathsBefore = paths }
        guard cause == .stats, let adopted = discoverabilityRun.map({ $0.machine.status }),
              let input = discoverabilityRun?.witness.input(before: pathsBefore, after: paths, adopted: adopted) else { return }
        discoverabilityInput(input)
    }

    /// Our network changed (an interface address the prober watches): probe again and restart
    /// ICE on the connections we offer.
    func networkChanged() {
        discoverabilityInput(.networkChanged)
        restartIceOnEveryConnection()
    }

    func report(_ status: SelfConnectionStatus) {
        discoverability = status
        yield(.discoverabilityChanged(status, publication.streamDown ? DiscoverabilityEvidence(results: [], rounds: 0) : publication.evidence))
    }

    // MARK: The XMPP stream and discoverability

    /// The stream dropped: the client reconnects by itself (0.2, 1, 2, 5 s, then every 10 s).
    /// Still down after ``FriendManagerConfiguration/offlineAfterStreamLoss``, we are `offline`.
    func streamLost() {
        streamWatch?.cancel()
        let delay = configuration.offlineAfterStreamLoss
        streamWatch = Task { [weak self, clock] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.streamDownForGood()
        }
    }

    /// The client gave up (credentials refused, or `disconnect()`): `offline` at once.
    func streamEnded() {
        streamWatch?.cancel()
        streamWatch = nil
        streamDownForGood()
    }

    func streamRestored() {
        streamWatch?.cancel()
        streamWatch = nil
        if let reported = publication.stream(down: false) { report(reported) }
    }

    private func streamDownForGood() {
        guard started else { return }
        if let reported = publication.stream(down: true) { report(reported) }
    }
}
