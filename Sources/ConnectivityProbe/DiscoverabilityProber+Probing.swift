import Connectivity
import Dispatch

extension DiscoverabilityProber: DiscoverabilityProbing {
    /// Whether the TCP probe has a TURN server and credentials.
    public var tcpRelayConfigured: Bool { configuration.tcpRelayConfigured }

    /// Runs the blocking probe on a global queue, so the caller's executor is not held for the
    /// probe's timeout.
    public func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.run(probe)) }
        }
    }

    /// The interface addresses (getifaddrs), read every 250 ms: an element each time the set
    /// changes. A poll, not a notification: it needs no platform framework and reads what the
    /// probes would go out through.
    public func networkChanges() -> AsyncStream<Void>? {
        InterfaceAddresses.changes(every: .milliseconds(250))
    }
}
