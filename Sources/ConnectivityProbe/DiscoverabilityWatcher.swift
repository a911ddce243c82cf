#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Connectivity

/// Drives ``DiscoverabilityStateMachine`` with real probes and the continuous clock, on the
/// calling thread: runs each probe it asks for, sleeps until its timer, and between rounds
/// checks the interface addresses every 250 ms: a change is a network change (a new round at
/// once).
public struct DiscoverabilityWatcher: Sendable {
    /// The probes.
    public let prober: DiscoverabilityProber
    /// The state machine's configuration (its `tcpRelayConfigured` follows the prober's).
    public let machineConfiguration: DiscoverabilityStateMachine.Configuration

    /// Creates a watcher.
    public init(prober: DiscoverabilityProber, reevaluationInterval: Duration = .seconds(30), confirmationRounds: Int = 2, confirmationDelay: Duration = .zero) {
        self.prober = prober
        machineConfiguration = DiscoverabilityStateMachine.Configuration(
            reevaluationInterval: reevaluationInterval, confirmationRounds: confirmationRounds,
            confirmationDelay: confirmationDelay, tcpRelayConfigured: prober.configuration.tcpRelayConfigured)
    }

    /// A status and the probe results it was decided from.
    public struct Reading: Sendable {
        /// The level.
        public var status: SelfConnectionStatus
        /// Which probes answered, and how.
        public var evidence: DiscoverabilityEvidence
    }

    /// One evaluation: the first round's status and its evidence.
    public func evaluateOnce() -> Reading {
        var result: Reading?
        run(for: .seconds(3600), stopAfterFirstStatus: true) { status, evidence, _ in result = Reading(status: status, evidence: evidence) }
        return result ?? Reading(status: .offline, evidence: DiscoverabilityEvidence(results: [], rounds: 0))
    }

    /// Re-evaluates for `duration`, calling `onChange` with each status change and its time
    /// since the start.
    public func watch(for duration: Duration, onChange: (SelfConnectionStatus, DiscoverabilityEvidence, Duration) -> Void) {
        run(for: duration, stopAfterFirstStatus: false, onChange: onChange)
    }

    private func run(for duration: Duration, stopAfterFirstStatus: Bool, onChange: (SelfConnectionStatus, DiscoverabilityEvidence, Duration) -> Void) {
        let clock = ContinuousClock()
        let start = clock.now
        var machine = DiscoverabilityStateMachine(configuration: machineConfiguration)
        var pending = machine.receive(.start, now: .zero)[...]
        var timer: Duration?
        var addresses = InterfaceAddresses.current()
        while true {
            while let action = pending.popFirst() {
                switch action {
                case .runProbe(let probe, let round):
                    let result = prober.run(probe)
                    pending += machine.receive(.probeFinished(round: round, result), now: start.duration(to: clock.now))
                case .scheduleRound(let deadline):
                    timer = deadline
                case .statusChanged(let status, let evidence):
                    onChange(status, evidence, start.duration(to: clock.now))
                    if stopAfterFirstStatus { return }
                }
            }
            guard let deadline = timer, deadline < duration else { return }
            // Sleep until the timer in slices, watching the interface addresses.
            var networkChanged = false
            while !networkChanged, start.duration(to: clock.now) < deadline {
                Self.sleep(min(.milliseconds(250), deadline - start.duration(to: clock.now)))
                let now = InterfaceAddresses.current()
                if now != addresses {
                    addresses = now
                    networkChanged = true
                }
            }
            timer = nil
            pending += machine.receive(networkChanged ? .networkChanged : .timerFired, now: start.duration(to: clock.now))
        }
    }

    private static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
