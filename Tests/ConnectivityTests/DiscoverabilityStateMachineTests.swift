import Connectivity
import Testing

/// The discoverability decision as a table: rounds in, status changes and timers out.
@Suite struct DiscoverabilityStateMachineTests {
    typealias Machine = DiscoverabilityStateMachine

    static func result(_ probe: DiscoverabilityProbe, _ succeeded: Bool) -> DiscoverabilityProbeResult {
        DiscoverabilityProbeResult(probe: probe, succeeded: succeeded, elapsed: succeeded ? .milliseconds(1) : .milliseconds(2500), detail: "")
    }

    /// Drives a machine through whole rounds, each given as the level its probes show; answers
    /// every `runProbe` the machine asks for and fires every timer at its deadline.
    struct Driver {
        var machine: Machine
        var now: Duration = .zero
        var changes: [SelfConnectionStatus] = []
        var probesRun: [DiscoverabilityProbe] = []
        var pendingProbe: (DiscoverabilityProbe, Int)?
        var timer: Duration?

        init(_ configuration: Machine.Configuration) {
            machine = Machine(configuration: configuration)
            handle(machine.receive(.start, now: now))
        }

        mutating func handle(_ actions: [Machine.Action]) {
            for action in actions {
                switch action {
                case .runProbe(let probe, let round): pendingProbe = (probe, round)
                case .scheduleRound(let deadline): timer = deadline
                case .statusChanged(let status, _): changes.append(status)
                }
            }
        }

        /// Runs one round whose network allows `level`.
        mutating func round(_ level: SelfConnectionStatus) {
            if pendingProbe == nil, let deadline = timer {
                now = deadline
                timer = nil
                handle(machine.receive(.timerFired, now: now))
            }
            while let (probe, round) = pendingProbe {
                pendingProbe = nil
                probesRun.append(probe)
                now += .milliseconds(probe == .udpBinding && level != .udp ? 2500 : 1)
                handle(machine.receive(.probeFinished(round: round, result(probe, level >= probe.provenStatus)), now: now))
                if let next = pendingProbe, next.1 != round { break }  // the next round started at once
            }
        }
    }

    @Test(arguments: [
        // rounds (the level each round's network allows) → status changes reported
        ([SelfConnectionStatus.udp], [SelfConnectionStatus.udp]),
        ([.tcp], [.tcp]),
        ([.offline], [.offline]),
        ([.udp, .offline], [.udp]),                          // one lost round is not offline
        ([.udp, .offline, .udp, .offline, .udp], [.udp]),    // nor are lost rounds that are not consecutive
        ([.udp, .offline, .offline], [.udp, .offline]),
        ([.udp, .tcp, .tcp], [.udp, .tcp]),
        ([.udp, .tcp, .offline], [.udp, .tcp]),              // the first worse round's level, once confirmed
        ([.udp, .offline, .tcp], [.udp, .offline]),          // the confirming round re-checks UDP only
        ([.udp, .offline, .tcp, .tcp], [.udp, .offline, .tcp]),   // the next full round corrects it
        ([.tcp, .offline, .offline], [.tcp, .offline]),
        ([.tcp, .offline, .tcp], [.tcp]),                    // confirming from tcp re-checks TCP: it answers
        ([.tcp, .offline, .udp], [.tcp]),
        ([.offline, .tcp], [.offline, .tcp]),                // better: at once
        ([.tcp, .udp], [.tcp, .udp]),
        ([.offline, .udp], [.offline, .udp]),
        ([.udp, .offline, .offline, .udp], [.udp, .offline, .udp]),
        ([.udp, .udp, .udp], [.udp]),                        // only changes are reported
    ])
    func statusFollowsRoundsWithHysteresis(rounds: [SelfConnectionStatus], changes: [SelfConnectionStatus]) {
        var driver = Driver(Machine.Configuration(tcpRelayConfigured: true))
        for level in rounds { driver.round(level) }
        #expect(driver.changes == changes)
        #expect(driver.machine.status == changes.last)
    }

    /// A confirming round runs only the current level's probe: one timeout, not two.
    @Test(arguments: [
        (SelfConnectionStatus.udp, SelfConnectionStatus.offline, [DiscoverabilityProbe.udpBinding, .udpBinding, .tcpAllocation, .udpBinding]),
        (.udp, .tcp, [.udpBinding, .udpBinding, .tcpAllocation, .udpBinding]),
        (.tcp, .offline, [.udpBinding, .tcpAllocation, .udpBinding, .tcpAllocation, .tcpAllocation]),
    ])
    func confirmingRoundsRecheckOnlyTheCurrentLevel(from: SelfConnectionStatus, to: SelfConnectionStatus, probes: [DiscoverabilityProbe]) {
        var driver = Driver(Machine.Configuration(tcpRelayConfigured: true))
        for level in [from, to, to] { driver.round(level) }
        #expect(driver.changes == [from, to])
        #expect(driver.probesRun == probes)
    }

    @Test func confirmationRoundsIsConfigurable() {
        var driver = Driver(Machine.Configuration(confirmationRounds: 3, tcpRelayConfigured: true))
        for level: SelfConnectionStatus in [.udp, .offline, .offline] { driver.round(level) }
        #expect(driver.changes == [.udp])
        driver.round(.offline)
        #expect(driver.changes == [.udp, .offline])
        var immediate = Driver(Machine.Configuration(confirmationRounds: 1, tcpRelayConfigured: true))
        for level: SelfConnectionStatus in [.udp, .tcp] { immediate.round(level) }
        #expect(immediate.changes == [.udp, .tcp])
    }

    @Test func probesAndTimersOfARound() {
        var machine = Machine(configuration: Machine.Configuration(reevaluationInterval: .seconds(30), tcpRelayConfigured: true))
        #expect(machine.receive(.start, now: .seconds(100)) == [.runProbe(.udpBinding, round: 1)])
        #expect(machine.receive(.start, now: .seconds(100)).isEmpty)
        // UDP fails: the TCP probe of the same round.
        let udpFailed = Self.result(.udpBinding, false)
        #expect(machine.receive(.probeFinished(round: 1, udpFailed), now: .milliseconds(102_500)) == [.runProbe(.tcpAllocation, round: 1)])
        let tcpOK = Self.result(.tcpAllocation, true)
        #expect(machine.receive(.probeFinished(round: 1, tcpOK), now: .milliseconds(102_510)) == [
            .statusChanged(.tcp, DiscoverabilityEvidence(results: [udpFailed, tcpOK], rounds: 1)),
            .scheduleRound(at: .milliseconds(132_510)),
        ])
        // An early or repeated timer is ignored; the due one starts round 2.
        #expect(machine.receive(.timerFired, now: .seconds(120)).isEmpty)
        #expect(machine.receive(.timerFired, now: .milliseconds(132_510)) == [.runProbe(.udpBinding, round: 2)])
        #expect(machine.receive(.timerFired, now: .seconds(140)).isEmpty)
        #expect(machine.spuriousTimersIgnored == 2)
        // UDP answers now: udp at once, without trying TCP.
        let udpOK = Self.result(.udpBinding, true)
        #expect(machine.receive(.probeFinished(round: 2, udpOK), now: .seconds(133)) == [
            .statusChanged(.udp, DiscoverabilityEvidence(results: [udpOK], rounds: 1)),
            .scheduleRound(at: .seconds(163)),
        ])
    }

    /// Lost media paths start a round like a network change, and witness for it: its worse
    /// level is adopted without a confirming round; a later worse level needs confirming again.
    @Test func lostMediaPathsConfirmTheRoundTheyStart() {
        var machine = Machine(configuration: Machine.Configuration(tcpRelayConfigured: true))
        _ = machine.receive(.start, now: .zero)
        _ = machine.receive(.probeFinished(round: 1, Self.result(.udpBinding, true)), now: .seconds(1))
        #expect(machine.receive(.mediaPathsLost, now: .seconds(5)) == [.runProbe(.udpBinding, round: 2)])
        let udpLost = Self.result(.udpBinding, false), tcpOK = Self.result(.tcpAllocation, true)
        #expect(machine.receive(.probeFinished(round: 2, udpLost), now: .milliseconds(7500)) == [.runProbe(.tcpAllocation, round: 2)])
        #expect(machine.receive(.probeFinished(round: 2, tcpOK), now: .milliseconds(7510)) == [
            .statusChanged(.tcp, DiscoverabilityEvidence(results: [udpLost, tcpOK], rounds: 1)),
            .scheduleRound(at: .milliseconds(37_510)),
        ])
        // The next periodic round measures offline: that one is confirmed by a second round.
        #expect(machine.receive(.timerFired, now: .milliseconds(37_510)) == [.runProbe(.udpBinding, round: 3)])
        #expect(machine.receive(.probeFinished(round: 3, udpLost), now: .seconds(40)) == [.runProbe(.tcpAllocation, round: 3)])
        #expect(machine.receive(.probeFinished(round: 3, Self.result(.tcpAllocation, false)), now: .seconds(42)) == [.runProbe(.tcpAllocation, round: 4)])
        #expect(machine.status == .tcp)
    }

    @Test func networkChangeAbandonsTheRoundAndCountsItsLateResults() {
        var machine = Machine(configuration: Machine.Configuration(tcpRelayConfigured: true))
        _ = machine.receive(.start, now: .zero)
        _ = machine.receive(.probeFinished(round: 1, Self.result(.udpBinding, true)), now: .seconds(1))
        #expect(machine.receive(.timerFired, now: .seconds(31)) == [.runProbe(.udpBinding, round: 2)])
        #expect(machine.receive(.networkChanged, now: .seconds(32)) == [.runProbe(.udpBinding, round: 3)])
        #expect(machine.receive(.probeFinished(round: 2, Self.result(.udpBinding, false)), now: .seconds(33)).isEmpty)
        #expect(machine.receive(.probeFinished(round: 3, Self.result(.tcpAllocation, true)), now: .seconds(33)).isEmpty)   // not asked for
        #expect(machine.staleResultsIgnored == 2)
        #expect(machine.status == .udp)
        // The worse round after the change still needs confirming.
        #expect(machine.receive(.probeFinished(round: 3, Self.result(.udpBinding, false)), now: .seconds(35)) == [.runProbe(.tcpAllocation, round: 3)])
        #expect(machine.receive(.probeFinished(round: 3, Self.result(.tcpAllocation, false)), now: .seconds(36)) == [.runProbe(.udpBinding, round: 4)])
        // The confirming round re-checks UDP only: its failure confirms offline.
        #expect(machine.receive(.probeFinished(round: 4, Self.result(.udpBinding, false)), now: .seconds(39)).first
            == .statusChanged(.offline, DiscoverabilityEvidence(results: [Self.result(.udpBinding, false), Self.result(.tcpAllocation, false), Self.result(.udpBinding, false)], rounds: 2)))
    }

    @Test func networkChangeVoidsAPendingConfirmation() {
        var driver = Driver(Machine.Configuration(tcpRelayConfigured: true))
        driver.round(.udp)
        driver.round(.offline)                                  // first worse round: confirmation pending
        driver.handle(driver.machine.receive(.networkChanged, now: driver.now))
        driver.round(.offline)                                  // counts as the first again
        #expect(driver.changes == [.udp])
        driver.round(.offline)
        #expect(driver.changes == [.udp, .offline])
    }

    @Test func withoutTURNAFailedBindingIsOffline() {
        var machine = Machine(configuration: Machine.Configuration(tcpRelayConfigured: false))
        _ = machine.receive(.start, now: .zero)
        let failed = Self.result(.udpBinding, false)
        #expect(machine.receive(.probeFinished(round: 1, failed), now: .seconds(3)) == [
            .statusChanged(.offline, DiscoverabilityEvidence(results: [failed], rounds: 1)), .scheduleRound(at: .seconds(33)),
        ])
    }

    @Test func confirmationDelaySchedulesTheConfirmingRound() {
        var machine = Machine(configuration: Machine.Configuration(confirmationDelay: .seconds(1), tcpRelayConfigured: false))
        _ = machine.receive(.start, now: .zero)
        _ = machine.receive(.probeFinished(round: 1, Self.result(.udpBinding, true)), now: .zero)
        _ = machine.receive(.timerFired, now: .seconds(30))
        #expect(machine.receive(.probeFinished(round: 2, Self.result(.udpBinding, false)), now: .seconds(33)) == [.scheduleRound(at: .seconds(34))])
        #expect(machine.receive(.timerFired, now: .seconds(34)) == [.runProbe(.udpBinding, round: 3)])
        let failed = Self.result(.udpBinding, false)
        #expect(machine.receive(.probeFinished(round: 3, failed), now: .seconds(37)) == [
            .statusChanged(.offline, DiscoverabilityEvidence(results: [failed, failed], rounds: 2)), .scheduleRound(at: .seconds(67)),
        ])
    }

    @Test func evidenceOfADowngradeIsTheWorseRoundAndItsConfirmation() {
        var machine = Machine(configuration: Machine.Configuration(tcpRelayConfigured: true))
        _ = machine.receive(.start, now: .zero)
        _ = machine.receive(.probeFinished(round: 1, Self.result(.udpBinding, true)), now: .zero)
        _ = machine.receive(.timerFired, now: .seconds(30))
        _ = machine.receive(.probeFinished(round: 2, Self.result(.udpBinding, false)), now: .seconds(33))
        #expect(machine.receive(.probeFinished(round: 2, Self.result(.tcpAllocation, true)), now: .seconds(33)) == [.runProbe(.udpBinding, round: 3)])
        let actions = machine.receive(.probeFinished(round: 3, Self.result(.udpBinding, false)), now: .seconds(36))
        #expect(actions == [
            .statusChanged(.tcp, DiscoverabilityEvidence(results: [Self.result(.udpBinding, false), Self.result(.tcpAllocation, true), Self.result(.udpBinding, false)], rounds: 2)),
            .scheduleRound(at: .seconds(66)),
        ])
    }
}
