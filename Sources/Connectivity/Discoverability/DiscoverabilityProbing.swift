/// Runs discoverability probes for a caller that does no I/O of its own (a `CallSession`): the
/// platform part (`ConnectivityProbe`'s `DiscoverabilityProber`) implements it, tests fake it.
public protocol DiscoverabilityProbing: Sendable {
    /// Whether a TURN server and credentials are configured for the TCP probe.
    var tcpRelayConfigured: Bool { get }
    /// Runs `probe` to the end; a failure is a result (`succeeded == false`), never a throw.
    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult
    /// One element each time the device's network changes (an interface or address came or
    /// went), for as long as the stream is iterated; `nil` when this prober cannot tell, and
    /// the app then reports changes itself.
    func networkChanges() -> AsyncStream<Void>?
}

extension DiscoverabilityProbing {
    /// Default: the prober cannot tell.
    public func networkChanges() -> AsyncStream<Void>? { nil }
}
