import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// A relayed call of three (a mesh) on the publishing side: one `CallPublisher`, one media
/// connection per subscriber (issue 24, seeds 000/001: a relayed publisher's stats arrays hold
/// one element per subscriber, with its `connectionId` and `subscriberId`). Over a fake mesh
/// signalling and the fake engine; the loss figures are worked out by hand in each test.
@Suite(.timeLimit(.minutes(1))) struct RelayedMeshPublicationTests {
    static let alice = FeedID("alice@example.org/a"), bob = FeedID("bob@example.org/b"), carol = FeedID("carol@example.org/c")

    struct Rig {
        let clock = ManualClock()
        let engine = FakeMediaEngine()
        let signaling = FakeMeshSignaling(own: RelayedMeshPublicationTests.alice, attendees: [RelayedMeshPublicationTests.bob, RelayedMeshPublicationTests.carol])
        let session: CallSession
        let publisher = CallPublisher()
        let stats: Collector<StatsCallback>
        let lifecycle: Collector<CallPublisherEvent>

        init() {
            session = CallSession(signaling: signaling, engine: engine, clock: clock, wallClock: { Date(timeIntervalSince1970: 1_800_000_000) },
                                  configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
            stats = Collector(publisher.statsMonitor.events)
            lifecycle = Collector(publisher.events)
        }

        /// Connected and publishing, both links answered.
        func publish() async throws {
            try await session.connect(display: "alice")
            try await session.publish(publisher)
            await eventually("both links answered") { engine.calls.filter { $0.hasPrefix("setRemote") }.count == 2 }
        }

        /// One stats sample of every link: `reports` set, the clock moved by a second.
        func sample(_ reports: [PeerConnectionID: StatsReport]) async {
            for (pc, report) in reports { engine.setReport(report, for: pc) }
            let before = engine.calls.filter { $0.hasPrefix("stats") }.count
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await eventually("sampled") { engine.calls.filter { $0.hasPrefix("stats") }.count >= before + reports.count }
        }

        /// The latest publisher media-link array.
        func lastLinks() -> [PublisherMediaLinkStats] {
            stats.all.compactMap { if case .publisherMediaLinkStatsUpdated(let links) = $0.event { links } else { nil } }.last ?? []
        }
    }

    /// A publishing connection's report at `second`: one video layer with `sent` packets so
    /// far, `lost` of them lost per the subscriber's RTCP (`remote-inbound-rtp`).
    static func report(at second: Double, sent: Double, lost: Double) -> StatsReport {
        let time = second * 1000
        return StatsReport(entries: [
            StatsEntry(id: "OT1", type: .outboundRTP, timestamp: time, fields: [
                StatsField("kind", .string("video")), StatsField("ssrc", .number(1111)), StatsField("bytesSent", .number(sent * 1000)),
                StatsField("packetsSent", .number(sent)), StatsField("frameWidth", .number(640)), StatsField("frameHeight", .number(360)),
            ]),
            StatsEntry(id: "RI1", type: .remoteInboundRTP, timestamp: time, fields: [
                StatsField("kind", .string("video")), StatsField("localId", .string("OT1")), StatsField("packetsLost", .number(lost)),
            ]),
        ])
    }

    static let toBob = PeerConnectionID("pc-1"), toCarol = PeerConnectionID("pc-2")

    @Test func eachSubscriberGetsAConnectionOfItsOwnAndAnElementNamedAfterIt() async throws {
        let rig = Rig()
        try await rig.publish()
        // One peer connection per other participant, each offered in its own session.
        #expect(rig.engine.openPeerConnections == [Self.toBob, Self.toCarol])
        let offers = rig.signaling.calls.filter { $0.hasPrefix("offer") }
        #expect(Set(offers.map { $0.split(separator: " ")[1] }) == ["pub-\(Self.bob.rawValue)", "pub-\(Self.carol.rawValue)"])
        #expect(!rig.signaling.calls.contains("publish"), "a mesh never publishes to a router")
        #expect(rig.publisher.stream?.streamId == Self.alice.rawValue)

        await rig.sample([Self.toBob: Self.report(at: 1, sent: 100, lost: 0), Self.toCarol: Self.report(at: 1, sent: 100, lost: 0)])
        await eventually("two elements") { rig.lastLinks().count == 2 }
        let links = rig.lastLinks()
        #expect(links.map(\.connectionId) == [Self.bob.rawValue, Self.carol.rawValue])
        #expect(links.map(\.subscriberId) == ["sid-\(Self.bob.rawValue)", "sid-\(Self.carol.rawValue)"])
    }

    @Test func aSubscriberLeavingRemovesOnlyItsConnectionAndElement() async throws {
        let rig = Rig()
        try await rig.publish()
        await rig.sample([Self.toBob: Self.report(at: 1, sent: 100, lost: 0), Self.toCarol: Self.report(at: 1, sent: 100, lost: 0)])
        await eventually("two elements") { rig.lastLinks().count == 2 }

        rig.signaling.emit(.participantLeft(Self.carol))
        await eventually("carol's connection closed") { rig.engine.openPeerConnections == [Self.toBob] }
        #expect(!rig.signaling.calls.contains("closePublication pub-\(Self.carol.rawValue)"), "she left: nothing to end")
        let before = rig.stats.all.count
        await rig.sample([Self.toBob: Self.report(at: 2, sent: 200, lost: 0)])
        await eventually("a new array") { rig.stats.all.count > before && rig.lastLinks().count == 1 }
        #expect(rig.lastLinks().map(\.connectionId) == [Self.bob.rawValue])

        // Bob ends his session (stops subscribing): his link closes too; the stream stays.
        rig.signaling.emit(.hangup(FakeMeshSignaling.handle(Self.bob), reason: "bob ended it"))
        await eventually("bob's connection closed") { rig.engine.openPeerConnections.isEmpty }
        #expect(rig.publisher.stream != nil)

        // Someone joins: a link to them, offered at once.
        let dave = FeedID("dave@example.org/d")
        rig.signaling.emit(.participantJoined(dave, display: nil))
        await eventually("dave's link answered") { rig.engine.calls.filter { $0.hasPrefix("setRemote") }.count == 3 }
        #expect(rig.engine.openPeerConnections == [PeerConnectionID("pc-3")])

        // Unpublishing ends every session still open, then the stream.
        await rig.session.unpublish(rig.publisher)
        #expect(rig.signaling.calls.contains("closePublication pub-\(dave.rawValue)"))
        #expect(rig.engine.openPeerConnections.isEmpty)
        #expect(rig.publisher.stream == nil)
    }

    /// Hanging up one participant (`RemoteParticipant.disconnect()`) ends our connection to
    /// it and its session; the other keeps its connection.
    @Test func hangingUpOneParticipantEndsOnlyItsConnection() async throws {
        let rig = Rig()
        try await rig.publish()
        let carol = try #require(await rig.session.participants.first { $0.connectionId == Self.carol.rawValue })
        await carol.disconnect()
        #expect(rig.engine.openPeerConnections == [Self.toBob])
        #expect(rig.signaling.calls.contains("closePublication pub-\(Self.carol.rawValue)"))
        #expect(!rig.signaling.calls.contains("closePublication pub-\(Self.bob.rawValue)"))
    }

    /// Carol's layer policy falls back to audio (her `configure` with `send: false` reached us):
    /// the video track goes off on her connection only, and on again when she asks; Bob's
    /// connection and the stream's `hasVideo` are untouched.
    @Test func aSubscribersAudioFallbackTurnsVideoOffOnItsConnectionOnly() async throws {
        let rig = Rig()
        try await rig.publish()
        rig.signaling.setWantsVideo(false, on: FakeMeshSignaling.handle(Self.carol))
        await rig.sample([Self.toBob: Self.report(at: 1, sent: 100, lost: 0), Self.toCarol: Self.report(at: 1, sent: 100, lost: 0)])
        await eventually("carol's video off") { rig.engine.calls.contains("setTracksEnabled pc-2 video false") }
        #expect(!rig.engine.calls.contains { $0.hasPrefix("setTracksEnabled pc-1") }, "bob's connection untouched")
        #expect(rig.publisher.stream?.hasVideo == true)
        rig.signaling.setWantsVideo(true, on: FakeMeshSignaling.handle(Self.carol))
        await rig.sample([Self.toBob: Self.report(at: 2, sent: 200, lost: 0), Self.toCarol: Self.report(at: 2, sent: 200, lost: 0)])
        await eventually("carol's video on") { rig.engine.calls.contains("setTracksEnabled pc-2 video true") }
        #expect(!rig.engine.calls.contains { $0.hasPrefix("setTracksEnabled pc-1") })
    }

    /// Carol's link loses 20 of every 100 packets (0.20 ≥ the loss bound of `warning`, 0.15:
    /// critical, adopted at once once the condition is known after 2 samples); Bob's loses
    /// none (below 0.01: excellent). Only Carol's element degrades.
    @Test func lossOnOneSubscribersLinkDegradesOnlyItsElement() async throws {
        let rig = Rig()
        try await rig.publish()
        for second in 1...4 {
            let sent = Double(second) * 100
            await rig.sample([Self.toBob: Self.report(at: Double(second), sent: sent, lost: 0),
                              Self.toCarol: Self.report(at: Double(second), sent: sent, lost: sent * 0.2)])
        }
        await eventually("carol's element critical") { rig.lastLinks().first { $0.connectionId == Self.carol.rawValue }?.transport.networkCondition == .critical }
        let links = rig.lastLinks()
        let bob = try #require(links.first { $0.connectionId == Self.bob.rawValue })
        #expect(bob.transport.networkCondition == .excellent, "bob's element: \(bob.transport.networkCondition)")
        let change = rig.stats.all.compactMap { callback -> String? in
            if case .publisherNetworkConditionChanged(let link, _) = callback.event, link.transport.networkCondition == .critical { link.connectionId } else { nil }
        }
        #expect(change == [Self.carol.rawValue], "the condition change names carol only")
    }
}
