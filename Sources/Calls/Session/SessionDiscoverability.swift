import Connectivity

/// Measures, during a session, whether others can reach us (docs/spec/sessions.md §5,
/// ``CallSession/connectionState``): the probes to run and how often.
public struct SessionDiscoverability: Sendable {
    /// Runs the STUN binding and TURN allocation (`ConnectivityProbe`'s `DiscoverabilityProber`
    /// in an app, a fake in tests).
    public var probe: any DiscoverabilityProbing
    /// Between rounds when nothing is in doubt.
    public var reevaluationInterval: Duration
    /// Consecutive worse rounds before a worse level is adopted (one lost probe is not `offline`).
    public var confirmationRounds: Int
    /// Between a worse round and the one that confirms it.
    public var confirmationDelay: Duration
    /// Whether losing the paths to every participant, and getting one back afterwards, starts a
    /// round at once, as a network change does: a firewall or a dead uplink changes no interface,
    /// so without it the level follows only at the next periodic round (up to
    /// ``reevaluationInterval`` late). The lost media also stand for one confirming round of a
    /// worse level that round measures.
    public var reevaluatesWhenPathsChange: Bool

    /// Creates the configuration: a round every 30 s, a worse level after 2 rounds, a round at
    /// once when the paths to everyone go or come back.
    public init(probe: any DiscoverabilityProbing, reevaluationInterval: Duration = .seconds(30),
                confirmationRounds: Int = 2, confirmationDelay: Duration = .zero, reevaluatesWhenPathsChange: Bool = true) {
        self.probe = probe
        self.reevaluationInterval = reevaluationInterval
        self.confirmationRounds = confirmationRounds
        self.confirmationDelay = confirmationDelay
        self.reevaluatesWhenPathsChange = reevaluatesWhenPathsChange
    }

    var machineConfiguration: DiscoverabilityStateMachine.Configuration {
        .init(reevaluationInterval: reevaluationInterval, confirmationRounds: confirmationRounds,
              confirmationDelay: confirmationDelay, tcpRelayConfigured: probe.tcpRelayConfigured)
    }
}

/// The running discoverability: the machine, its timer and the probe under way.
struct DiscoverabilityRun: Sendable {
    var machine: DiscoverabilityStateMachine
    var timerTask: Task<Void, Never>?
    var probeTask: Task<Void, Never>?
    /// Turns the prober's network changes into rounds.
    var changesTask: Task<Void, Never>?
    /// The paths to every participant went away during this run (their return starts a round).
    var pathsWereLost = false

    func cancel() {
        timerTask?.cancel()
        probeTask?.cancel()
        changesTask?.cancel()
    }
}
