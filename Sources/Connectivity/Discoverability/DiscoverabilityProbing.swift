/// Runs discoverability probes for a caller that does no I/O of its own (a `CallSession`): the
/// platform part (`ConnectivityProbe`'s `DiscoverabilityProber`) implements it, tests fake it.
public protocol DiscoverabilityProbing: Sendable {
    /// Whether a TURN server and credentials are configured for the TCP probe.
    var tcpRelayConfigured: Bool { get }
    /// Runs `probe` to the end; a failure is a result (`succeeded == false`), never a throw.
    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult
}
