import CallScopeCore

/// Decides ``SelfConnectionStatus`` from probe results, as a value: inputs in, actions out
/// (the caller runs the probes and the timer, outside any lock). Time is whatever monotonic
/// `now` the caller passes (a `Duration` since any fixed origin).
///
/// A round tries the UDP binding, then — only if it failed and a TURN server is configured —
/// the TCP allocation; its level is the best probe that succeeded (`offline` if none).
/// - The first round's level is adopted as it is.
/// - A better level is adopted at once (an answer is proof).
/// - A worse level only after ``Configuration/confirmationRounds`` consecutive worse rounds
///   (one lost probe is not `offline`). The confirming rounds follow after
///   ``Configuration/confirmationDelay`` and re-check only the current level's probe (the UDP
///   binding when `udp`, the TCP allocation when `tcp`): if it fails again, the level the first
///   worse round measured is adopted. So confirming costs one probe timeout, not two, and a later
///   full round corrects a level that improved meanwhile.
/// - Rounds repeat every ``Configuration/reevaluationInterval``; a network change abandons the
///   running round (its late results are ignored and counted) and starts a new one at once.
/// - Lost media paths (``Input/mediaPathsLost``) start a round as a network change does, and
///   witness for it: a worse level that round measures needs one confirming round fewer.
/// - ``Action/statusChanged(_:_:)`` only when the status changes.
public struct DiscoverabilityStateMachine: Sendable {
    /// The timing and the probes available.
    public struct Configuration: Hashable, Sendable {
        /// Between the end of a round and the next one when nothing is in doubt.
        public var reevaluationInterval: Duration
        /// Consecutive worse rounds before a worse level is adopted (at least 1).
        public var confirmationRounds: Int
        /// Between a worse round and the one that confirms it.
        public var confirmationDelay: Duration
        /// Whether a TURN server (and credentials) is configured for the TCP probe.
        public var tcpRelayConfigured: Bool

        /// Creates a configuration.
        public init(reevaluationInterval: Duration = .seconds(30), confirmationRounds: Int = 2, confirmationDelay: Duration = .zero, tcpRelayConfigured: Bool) {
            self.reevaluationInterval = reevaluationInterval
            self.confirmationRounds = max(1, confirmationRounds)
            self.confirmationDelay = confirmationDelay
            self.tcpRelayConfigured = tcpRelayConfigured
        }
    }

    /// What happened.
    public enum Input: Hashable, Sendable {
        /// Begin: the first round starts now. Ignored when already started.
        case start
        /// The device's network changed (interface, address, route): re-evaluate now.
        case networkChanged
        /// Every media path stopped working (a call's paths to all its participants): re-evaluate
        /// now, as on a network change, and count the lost media as one worse round already, so a
        /// worse level this round measures is confirmed by it rather than by another round (two
        /// independent witnesses, as ``Configuration/confirmationRounds`` asks for).
        case mediaPathsLost
        /// The timer of the last ``Action/scheduleRound(at:)`` fired.
        case timerFired
        /// A probe of round `round` finished.
        case probeFinished(round: Int, DiscoverabilityProbeResult)
    }

    /// What the caller must do, in order.
    public enum Action: Hashable, Sendable {
        /// Run this probe and report it with ``Input/probeFinished(round:_:)``.
        case runProbe(DiscoverabilityProbe, round: Int)
        /// Fire ``Input/timerFired`` at this time; replaces any timer scheduled before.
        case scheduleRound(at: Duration)
        /// The status changed (the first status counts as a change): tell the delegate.
        case statusChanged(SelfConnectionStatus, DiscoverabilityEvidence)
    }

    /// The configuration.
    public let configuration: Configuration
    /// The adopted status; `nil` until the first round ends.
    public var status: SelfConnectionStatus? { hysteresis.adopted }
    /// Probe results that arrived for an abandoned round or a probe not asked for, ignored.
    public private(set) var staleResultsIgnored = 0
    /// Timer firings that came early or while a round ran, ignored.
    public private(set) var spuriousTimersIgnored = 0

    private var round = 0
    private var running: (confirming: Bool, probe: DiscoverabilityProbe, results: [DiscoverabilityProbeResult])?
    private var timerDeadline: Duration?
    /// The adopted level; its pending count is the consecutive worse rounds so far.
    private var hysteresis: Hysteresis<SelfConnectionStatus>
    private var bestWorse: (level: SelfConnectionStatus, results: [DiscoverabilityProbeResult])?
    private var confirmationEvidence: [DiscoverabilityProbeResult] = []
    private var started = false
    /// The running round was started by ``Input/mediaPathsLost``.
    private var corroborated = false

    /// Creates a machine; nothing happens before ``Input/start``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        hysteresis = Hysteresis(degradeAfter: configuration.confirmationRounds, recoverAfter: 1)
    }

    /// Feeds one input; returns the actions to perform, in order.
    public mutating func receive(_ input: Input, now: Duration) -> [Action] {
        switch input {
        case .start:
            guard !started else { return [] }
            started = true
            return startRound()
        case .networkChanged, .mediaPathsLost:
            guard started else { return [] }
            resetWorse()                                  // evidence from the old network is void
            defer { corroborated = input == .mediaPathsLost }
            return startRound()
        case .timerFired:
            guard running == nil, let deadline = timerDeadline, now >= deadline else {
                spuriousTimersIgnored += 1
                return []
            }
            timerDeadline = nil
            return startRound(confirming: hysteresis.pendingCount > 0)
        case .probeFinished(let resultRound, let result):
            guard resultRound == round, let current = running, current.probe == result.probe else {
                staleResultsIgnored += 1
                return []
            }
            let results = current.results + [result]
            if !current.confirming, !result.succeeded, result.probe == .udpBinding, configuration.tcpRelayConfigured {
                running = (false, .tcpAllocation, results)
                return [.runProbe(.tcpAllocation, round: round)]
            }
            running = nil
            if current.confirming, !result.succeeded {
                return confirmWorse(results: results, now: now)
            }
            let level = result.succeeded ? result.probe.provenStatus : .offline
            return finishRound(level: level, results: results, now: now)
        }
    }

    private mutating func startRound(confirming: Bool = false) -> [Action] {
        round += 1
        corroborated = false
        timerDeadline = nil
        let probe: DiscoverabilityProbe = confirming && status == .tcp ? .tcpAllocation : .udpBinding
        running = (confirming, probe, [])
        return [.runProbe(probe, round: round)]
    }

    private mutating func resetWorse() {
        hysteresis.resetPending()
        bestWorse = nil
        confirmationEvidence = []
    }

    /// The current level's probe failed again in a confirming round.
    private mutating func confirmWorse(results: [DiscoverabilityProbeResult], now: Duration) -> [Action] {
        let rounds = hysteresis.pendingCount + 1
        confirmationEvidence += results
        let adopted = bestWorse ?? (.offline, [])
        guard !hysteresis.receive(adopted.level).isEmpty else { return nextConfirmation(now: now) }
        let evidence = DiscoverabilityEvidence(results: adopted.results + confirmationEvidence, rounds: rounds)
        resetWorse()
        return [.statusChanged(adopted.level, evidence), schedule(at: now + configuration.reevaluationInterval)]
    }

    private mutating func nextConfirmation(now: Duration) -> [Action] {
        if configuration.confirmationDelay == .zero { return startRound(confirming: true) }
        return [schedule(at: now + configuration.confirmationDelay)]
    }

    private mutating func finishRound(level: SelfConnectionStatus, results: [DiscoverabilityProbeResult], now: Duration) -> [Action] {
        guard let current = status, level <= current else {
            _ = hysteresis.receive(level)                 // first status, or better: at once
            resetWorse()
            return [.statusChanged(level, DiscoverabilityEvidence(results: results, rounds: 1)), schedule(at: now + configuration.reevaluationInterval)]
        }
        guard level < current else {
            resetWorse()                                  // the current level answered again
            return [schedule(at: now + configuration.reevaluationInterval)]
        }
        // A full round measured a worse level: the first worse round (a confirming round does
        // not get here), or one after a network change; after lost media paths, the second.
        hysteresis.resetPending()
        var adopted = !hysteresis.receive(level).isEmpty
        if corroborated, !adopted { adopted = !hysteresis.receive(level).isEmpty }
        bestWorse = (level, results)
        confirmationEvidence = []
        guard adopted else { return nextConfirmation(now: now) }
        resetWorse()
        return [.statusChanged(level, DiscoverabilityEvidence(results: results, rounds: 1)), schedule(at: now + configuration.reevaluationInterval)]
    }

    private mutating func schedule(at deadline: Duration) -> Action {
        timerDeadline = deadline
        return .scheduleRound(at: deadline)
    }
}

extension SelfConnectionStatus: HysteresisLevel {
    /// Lower is worse (`offline` < `tcp` < `udp`).
    package func isWorse(than adopted: SelfConnectionStatus) -> Bool { self < adopted }
}
