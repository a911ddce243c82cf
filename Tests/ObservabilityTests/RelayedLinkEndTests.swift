import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// A relayed publisher's subscriber leaving (a mesh): its named link leaves the arrays, the
/// other subscriber's element stays as it was.
@Suite struct RelayedLinkEndTests {
    typealias S = Synthetic

    private func mediaLinks(_ callbacks: [StatsCallback]) -> [PublisherMediaLinkStats]? {
        for callback in callbacks { if case .publisherMediaLinkStatsUpdated(let links) = callback.event { return links } }
        return nil
    }

    private func layer(_ time: Double, _ bytes: Double) -> [StatsEntry] {
        [S.videoLayer("OT1", at: time, rid: nil, width: 640, height: 360, bytesSent: bytes)]
    }

    @Test func anEndedLinkLeavesTheArraysAndTheOtherStays() throws {
        var engine = CallStatsEngine()
        engine.nameRelayedLink(endpoint: "publisher", peerConnection: "pc-1", connectionId: "bob@example.org/b", subscriberId: "sid-b")
        engine.nameRelayedLink(endpoint: "publisher", peerConnection: "pc-2", connectionId: "carol@example.org/c", subscriberId: "sid-c")
        _ = engine.ingest(S.sample(pc: "pc-1", at: 1000, layer(1000, 1_000)))
        let both = try #require(mediaLinks(engine.ingest(S.sample(pc: "pc-2", at: 1000, layer(1000, 2_000)))))
        #expect(both.map(\.connectionId) == ["bob@example.org/b", "carol@example.org/c"])

        engine.forgetRelayedLink(endpoint: "publisher", peerConnection: "pc-2")
        let one = try #require(mediaLinks(engine.ingest(S.sample(pc: "pc-1", at: 2000, layer(2000, 3_000)))))
        #expect(one.map(\.connectionId) == ["bob@example.org/b"])
        #expect(one.map(\.subscriberId) == ["sid-b"])
    }

    /// The raw reports are named after the subscriber connection too (as the arrays are), and
    /// an ended relay's report is no longer listed.
    @Test func theMonitorEndsARelayAndForgetsItsRawReport() {
        let monitor = PublisherStatsMonitor()
        monitor.relay(PeerConnectionID("pc-1"), toConnection: "bob@example.org/b", subscriber: "sid-b")
        monitor.relay(PeerConnectionID("pc-2"), toConnection: "carol@example.org/c", subscriber: "sid-c")
        _ = monitor.read(StatsReport(entries: layer(1000, 1_000)), peerConnection: PeerConnectionID("pc-1"))
        _ = monitor.read(StatsReport(entries: layer(1000, 2_000)), peerConnection: PeerConnectionID("pc-2"))
        #expect(monitor.rtcStatsReport().map(\.connectionId) == ["bob@example.org/b", "carol@example.org/c"])
        monitor.endRelay(PeerConnectionID("pc-2"))
        #expect(monitor.rtcStatsReport().map(\.connectionId) == ["bob@example.org/b"])
    }
}
