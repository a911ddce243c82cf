import CallScopeCore
import Calls
import CallScopeTesting
import Connectivity
import ConnectivityProbe
import Foundation
import Testing

/// Seed 003's "no API to call": a real interface change (an address added to, then removed
/// from, the root side of the test's veth) makes a session measure its discoverability again
/// against a real coturn, with nobody calling `networkChanged()`. The router and the media
/// engine are fakes: only discoverability is under test here.
extension RealRelayTests {
    /// The real prober, its rounds counted.
    struct CountingProber: DiscoverabilityProbing {
        let prober: DiscoverabilityProber
        let runs = Locked<[Date]>([])
        var tcpRelayConfigured: Bool { prober.tcpRelayConfigured }
        func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
            runs.withLock { $0.append(Date()) }
            return await prober.probe(probe)
        }
        func networkChanges() -> AsyncStream<Void>? { prober.networkChanges() }
    }

    @Test(.timeLimit(.minutes(1)))
    func anInterfaceChangeIsMeasuredAgainWithoutACall() async throws {
        let namespace = try await NetworkNamespace.create()
        _ = namespace
        let coturn = try await CoturnProcess()
        let prober = CountingProber(prober: DiscoverabilityProber(configuration: DiscoverabilityProbeConfiguration(
            stunServer: coturn.endpoint, turnServer: coturn.endpoint, credentials: coturn.credentials)))
        let session = CallSession(signaling: FakeSignaling(participantID: FeedID("100"), feeds: []), engine: FakeMediaEngine(),
                                  clock: ContinuousClock(), wallClock: Date.init,
                                  discoverability: SessionDiscoverability(probe: prober, reevaluationInterval: .seconds(30)))
        let added = "10.201.3.77/32"
        func probes(after date: Date) -> Int { prober.runs.withLock { $0.filter { $0 > date }.count } }
        func firstProbe(after date: Date, within timeout: Duration) async -> Date? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let first = prober.runs.withLock({ $0.first { $0 > date } }) { return first }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
        do {
            try await session.connect()
            let deadline = ContinuousClock.now + .seconds(10)
            while await session.connectionState == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await session.connectionState == .udp)
            try await Task.sleep(for: .seconds(1))
            let quiet = Date()
            try await Task.sleep(for: .seconds(2))
            #expect(probes(after: quiet) == 0, "no round between the 30 s re-evaluations")

            let add = Date()
            try await NetworkNamespace.run(["/usr/sbin/ip", "addr", "add", added, "dev", NetworkNamespace.rootInterface])
            let afterAdd = await firstProbe(after: add, within: .seconds(3))
            try await Task.sleep(for: .seconds(1))
            let remove = Date()
            try await NetworkNamespace.run(["/usr/sbin/ip", "addr", "del", added, "dev", NetworkNamespace.rootInterface])
            let afterRemove = await firstProbe(after: remove, within: .seconds(3))
            progress("measured network change: a round \(RealRelayTests.seconds(afterAdd.map { $0.timeIntervalSince(add) })) after the address was added, "
                     + "\(RealRelayTests.seconds(afterRemove.map { $0.timeIntervalSince(remove) })) after it was removed; level \(String(describing: await session.connectionState))")
            #expect(afterAdd.map { $0.timeIntervalSince(add) < 2 } == true, "a round within 2 s of the address added")
            #expect(afterRemove.map { $0.timeIntervalSince(remove) < 2 } == true, "a round within 2 s of the address removed")
            #expect(await session.connectionState == .udp)
        } catch {
            Issue.record("\(error)")
        }
        await session.disconnect()
        try? await NetworkNamespace.run(["/usr/sbin/ip", "addr", "del", added, "dev", NetworkNamespace.rootInterface])
        await coturn.stop()
        await NetworkNamespace.remove()
    }
}
