import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// A relayed call names a publisher's link after the subscriber it reaches (Calls does it when
/// its signalling has no router): the arrays then hold that subscriber's connection and id, not
/// the routed element's empty ids nor the connection's label.
@Suite struct RelayedLinkNameTests {
    typealias S = Synthetic

    private func mediaLinks(_ callbacks: [StatsCallback]) -> [PublisherMediaLinkStats]? {
        for callback in callbacks { if case .publisherMediaLinkStatsUpdated(let links) = callback.event { return links } }
        return nil
    }

    @Test func aNamedLinkCarriesTheSubscribersIdsAndAnUnnamedOneItsLabel() throws {
        var engine = CallStatsEngine()
        let routed = try #require(mediaLinks(engine.ingest(S.sample(pc: "pc-1", at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 1_000)]))))
        #expect(routed.map(\.connectionId) == [""] && routed.map(\.subscriberId) == [""], "routed by default")

        engine.nameRelayedLink(endpoint: "publisher", peerConnection: "pc-2", connectionId: "bob@example.org/laptop", subscriberId: "call1-x")
        let named = try #require(mediaLinks(engine.ingest(S.sample(pc: "pc-2", at: 2000, [S.videoLayer("OT1", at: 2000, rid: nil, width: 640, height: 360, bytesSent: 2_000)]))))
        #expect(named.map(\.connectionId) == ["bob@example.org/laptop"])
        #expect(named.map(\.subscriberId) == ["call1-x"])

        // Another connection of the same (now relayed) publisher, not named: its label.
        let both = try #require(mediaLinks(engine.ingest(S.sample(pc: "pc-3", at: 3000, [S.videoLayer("OT1", at: 3000, rid: nil, width: 640, height: 360, bytesSent: 3_000)]))))
        #expect(both.map(\.connectionId) == ["bob@example.org/laptop", "pc-3"])
        #expect(both.map(\.subscriberId) == ["call1-x", "pc-3"])
    }

    @Test func theMonitorRelaysThroughItsEngine() async throws {
        let monitor = PublisherStatsMonitor()
        let events = monitor.events
        monitor.relay(PeerConnectionID("pc-9"), toConnection: "alice@example.org/phone", subscriber: "sid-7")
        _ = monitor.read(StatsReport(entries: [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 1_000)]), peerConnection: PeerConnectionID("pc-9"))
        var links: [PublisherMediaLinkStats]?
        for await callback in events {
            if case .publisherMediaLinkStatsUpdated(let found) = callback.event { links = found; break }
        }
        #expect(links?.map(\.connectionId) == ["alice@example.org/phone"])
        #expect(links?.map(\.subscriberId) == ["sid-7"])
    }
}
