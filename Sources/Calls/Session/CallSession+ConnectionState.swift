import Connectivity

extension CallSession {
    /// Can others reach us? `udp`, `tcp` (only through a TCP relay) or `offline`, measured while
    /// connected when the session was given a ``SessionDiscoverability``; `nil` before the first
    /// measurement or without one.
    public var connectionState: SelfConnectionStatus? { discoverabilityRun?.machine.status }

    /// The device's network changed (interface, address, route): discoverability is measured
    /// again at once. A prober that sees network changes itself (`ConnectivityProbe`'s, from
    /// the interface addresses) needs no call: the session starts the round by itself (seed
    /// 003: "there is no API to call"); an app whose prober cannot tell calls it from its path
    /// monitor. Nothing happens without a ``SessionDiscoverability`` or before ``connect(display:)``.
    public func networkChanged() { discoverabilityReceive(.networkChanged) }

    /// The paths to every participant went away (`worked` and not `works`), or came back after
    /// that: the network around us likely changed without an interface change (a firewall, a
    /// dead uplink), so a round starts at once; after a loss, the lost media count as the
    /// confirming round of a worse level. The first paths of a call start nothing, and
    /// neither does a return while the level is still `udp`: the round the loss started is
    /// measuring the new network already, and starting over would only delay it (measured: a
    /// TCP relay taking over 1.5 s after UDP was dropped put `tcp` 8.9 s after the drop, not 5.5 s).
    func pathsToEveryoneChanged(worked: Bool, works: Bool) {
        guard discoverability?.reevaluatesWhenPathsChange == true, var run = discoverabilityRun, worked != works else { return }
        if worked {
            run.pathsWereLost = true
        } else {
            guard run.pathsWereLost else { return }
            run.pathsWereLost = false
            guard run.machine.status != .udp else {
                discoverabilityRun = run
                return
            }
        }
        discoverabilityRun = run
        // Lost media witnesses for the round (a worse level needs no further confirmation).
        discoverabilityReceive(worked ? .mediaPathsLost : .networkChanged)
    }

    /// At connect: the first round starts, and each network change the prober sees starts one.
    func startDiscoverability() {
        guard let discoverability, discoverabilityRun == nil else { return }
        var run = DiscoverabilityRun(machine: DiscoverabilityStateMachine(configuration: discoverability.machineConfiguration))
        if let changes = discoverability.probe.networkChanges() {
            run.changesTask = Task { [weak self] in
                for await _ in changes { await self?.networkChanged() }
            }
        }
        discoverabilityRun = run
        discoverabilityReceive(.start)
    }

    /// At the session's end: the probe and timer stop; the next connect measures anew.
    func stopDiscoverability() {
        discoverabilityRun?.cancel()
        discoverabilityRun = nil
    }

    func discoverabilityReceive(_ input: DiscoverabilityStateMachine.Input) {
        guard var run = discoverabilityRun, let discoverability else { return }
        let actions = run.machine.receive(input, now: timer.elapsed)
        var events: [CallSessionEvent] = []
        for action in actions {
            switch action {
            case .runProbe(let probe, let round):
                let prober = discoverability.probe
                run.probeTask?.cancel()
                run.probeTask = Task { [weak self] in
                    let result = await prober.probe(probe)
                    guard !Task.isCancelled else { return }
                    await self?.discoverabilityReceive(.probeFinished(round: round, result))
                }
            case .scheduleRound(let deadline):
                run.timerTask?.cancel()
                let timer = self.timer
                run.timerTask = Task { [weak self] in
                    do { try await timer.sleep(untilElapsed: deadline) } catch { return }
                    await self?.discoverabilityReceive(.timerFired)
                }
            case .statusChanged(let status, _):
                events.append(.connectionStateChanged(status))
            }
        }
        discoverabilityRun = run
        deliver(events)
    }
}
