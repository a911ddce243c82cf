import CallScopeTestSupport
import Connectivity
import ConnectivityProbe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `DiscoverabilityProber`'s probes from inside the test's network namespace, where the
/// subscriber's Chromium is (so its level follows that namespace's firewall): each probe on a
/// thread of its own that first joins the namespace with `setns(2)`, which moves only the
/// calling thread. The thread ends with the probe, so no other code runs in the namespace.
struct NamespaceProber: DiscoverabilityProbing {
    let prober: DiscoverabilityProber
    let namespacePath: String

    init(configuration: DiscoverabilityProbeConfiguration, namespace: String = NetworkNamespace.name) {
        prober = DiscoverabilityProber(configuration: configuration)
        namespacePath = "/var/run/netns/\(namespace)"
    }

    var tcpRelayConfigured: Bool { prober.tcpRelayConfigured }

    /// Whether the session hears of network changes from it (the interface addresses of the
    /// test process's own namespace, where the root side of the veth is); off unless a test
    /// is about them, so that an address the kernel adds on its own (IPv6 link-local on a new
    /// veth) starts no round in the other tests.
    var watchesNetwork = false

    func networkChanges() -> AsyncStream<Void>? { watchesNetwork ? prober.networkChanges() : nil }

    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
        await NetworkNamespaceThread.run(in: namespacePath) { [prober] in prober.run(probe) }
            ?? DiscoverabilityProbeResult(probe: probe, succeeded: false, elapsed: .zero, detail: "could not join \(namespacePath)")
    }
}
