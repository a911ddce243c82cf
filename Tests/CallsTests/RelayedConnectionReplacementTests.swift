import CallScopeCore
import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import Testing

/// Replacing a relayed media connection (issue 24: reconnection "as in routed sessions";
/// docs/peer-to-peer.md, "Replacing a relayed peer connection"): with no router, the publisher
/// makes every new connection. Over the fakes: the machine's new input as a table (expected
/// actions written by hand from the default settings: 3 s stall, 5 s per restart, 30 s window),
/// a mesh link replaced towards its subscriber only, a link or publication whose engine lost the
/// peer connection replaced at once, and a subscription whose publisher replaced (or was asked
/// to replace) its connection staying the same subscription of the same stream.
@Suite(.timeLimit(.minutes(1))) struct RelayedConnectionReplacementTests {
    typealias M = MediaConnectionMachine
    typealias Step = SubscriberConnectionMachineTests.Step
    static let pc1 = PublisherReconnectionTests.pc1, participant = PublisherReconnectionTests.participant
    static let bob = RelayedMeshPublicationTests.bob, carol = RelayedMeshPublicationTests.carol
    static let toBob = RelayedMeshPublicationTests.toBob, toCarol = RelayedMeshPublicationTests.toCarol

    static let cases: [(String, [Step])] = [
        ("a restart the engine cannot begin, connected: disconnected and replaced at once", PublisherReconnectionTests.published + [
            Step(at: 3, input: .restartImpossible(participant), expect: [.emit(.didDisconnect), SubscriberConnectionMachineTests.window(1, 33),
                                                                         .replacePeerConnection(pc1, participant)]),
        ]),
        ("the same while disconnected: replaced, no second didDisconnect", PublisherReconnectionTests.published + [
            Step(at: 3, input: .iceState(pc1, .disconnected), expect: [.emit(.didDisconnect), SubscriberConnectionMachineTests.window(1, 33),
                                                                      .restartIce(participant), SubscriberConnectionMachineTests.restartTimer(1, 8)]),
            Step(at: 3, input: .restartImpossible(participant), expect: [.replacePeerConnection(pc1, participant)]),
        ]),
        ("for another handle: stale", PublisherReconnectionTests.published + [
            Step(at: 3, input: .restartImpossible(RouterHandleID("other")), expect: []),
        ]),
    ]

    @Test(arguments: cases.indices)
    func table(_ index: Int) {
        SubscriberConnectionMachineTests.play(Self.cases[index])
    }

    // MARK: - The mesh's links

    @Test func aSubscribersReplacementRequestReplacesItsLinkOnly() async throws {
        let rig = RelayedMeshPublicationTests.Rig()
        try await rig.publish()
        rig.signaling.emit(.replacementRequested(FakeMeshSignaling.handle(Self.carol)))
        let newHandle = "pub-\(Self.carol.rawValue)-2"
        await eventually("the new link answered") { rig.engine.calls.contains { $0.hasPrefix("setRemote pc-3 replaced answer \(newHandle)") } }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("replace") }.count == 1)
        #expect(rig.signaling.calls.contains { $0.hasPrefix("replace pub-\(Self.carol.rawValue) ") })
        #expect(!rig.signaling.calls.contains { $0.hasPrefix("closePublication") }, "no session ended: \(rig.signaling.calls)")
        #expect(rig.engine.openPeerConnections == [Self.toBob, PeerConnectionID("pc-3")], "carol's old connection closed, bob's kept")
        #expect(rig.engine.calls.contains { $0.hasPrefix("addLocalMedia pc-3") })
        #expect(!rig.lifecycle.all.contains { if case .didFail = $0 { true } else { false } }, "\(rig.lifecycle.all)")
        await rig.session.disconnect()
    }

    @Test func aLinkWhoseEngineLostThePeerConnectionIsReplacedNotFailed() async throws {
        let rig = RelayedMeshPublicationTests.Rig()
        try await rig.publish()
        // Carol asks for a restart, and the engine cannot make the offer: her connection is gone.
        rig.engine.failNext("createOffer \(Self.toCarol.rawValue) iceRestart", with: MediaEngineError(.rejected, "unknown peer connection"))
        rig.signaling.emit(.iceRestartRequested(FakeMeshSignaling.handle(Self.carol)))
        await eventually("replaced") { rig.engine.calls.contains { $0.hasPrefix("setRemote pc-3 replaced answer") } }
        #expect(!rig.signaling.calls.contains { $0.hasPrefix("restart") }, "no restart offer went")
        #expect(!rig.lifecycle.all.contains { if case .didFail = $0 { true } else { false } }, "\(rig.lifecycle.all)")
        #expect(rig.engine.openPeerConnections == [Self.toBob, PeerConnectionID("pc-3")])
        await rig.session.disconnect()
    }

    // MARK: - A call of two's publication

    @Test func aPublicationWhoseEngineLostThePeerConnectionIsPublishedAgainAtOnce() async throws {
        let published = try await PublisherReconnectionTests.published()
        let rig = published.rig
        rig.engine.failNext("createOffer pc-1 iceRestart", with: MediaEngineError(.rejected, "unknown peer connection"))
        rig.signaling.emit(.iceRestartRequested(FakeSignaling.participantHandle))
        await eventually("republished") { rig.engine.calls.contains { $0.hasPrefix("setRemote pc-2") } }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("republish") }.count == 1)
        #expect(!rig.signaling.calls.contains { $0.hasPrefix("restartPublisherIce") })
        #expect(!published.events.all.contains { if case .didFail = $0 { true } else { false } }, "\(published.events.all)")
        #expect(published.events.all.contains { if case .didDisconnect = $0 { true } else { false } })
        await rig.session.disconnect()
    }

    // MARK: - A subscription with no router

    @Test func aSubscriptionMovesToItsPublishersNewConnectionAsTheSameStream() async throws {
        let signaling = ReplacingFakeSignaling()
        let engine = FakeMediaEngine()
        let session = CallSession(signaling: signaling, engine: engine, clock: ManualClock(), wallClock: { CallSessionTests.t0 },
                                  configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        let events = Collector(session.events)
        try await session.connect()
        let stream = try #require(await session.streams.first { $0.streamId == "7" })
        let subscriber = CallSubscriber(stream: stream)
        let lifecycle = Collector(subscriber.events)
        try await session.subscribe(subscriber)
        #expect(signaling.inner.calls.contains { $0.hasPrefix("start sub-1") })

        // The publisher replaced its connection (a hangup of our handle): the new offer is
        // taken on a new peer connection; the old handle is not closed (that would end the
        // publisher's session), nothing is subscribed again.
        signaling.inner.emit(.hangup(RouterHandleID("sub-1"), reason: "replaced"))
        await eventually("answered on the new connection") { signaling.inner.calls.contains { $0.hasPrefix("start sub-1-new") } }
        #expect(signaling.replaced == ["sub-1"])
        #expect(engine.calls.contains("setRemote pc-2 replacement offer for sub-1"))
        #expect(!signaling.inner.calls.contains("close sub-1"), "\(signaling.inner.calls)")
        #expect(signaling.inner.calls.filter { $0.hasPrefix("subscribe") }.count == 1)
        #expect(engine.openPeerConnections == [PeerConnectionID("pc-2")])
        let subscribers = await session.subscribers
        #expect(subscribers.count == 1 && subscribers.first === subscriber)
        #expect(!events.all.contains { if case .streamDestroyed = $0 { true } else { false } })
        #expect(!lifecycle.all.contains { if case .didFail = $0 { true } else { false } }, "\(lifecycle.all)")
        await session.disconnect()
    }
}

/// ``FakeSignaling`` whose subscriptions are replaced by their publisher
/// (``SubscriptionReplacing``): `replaceSubscription(sub-N)` answers on `sub-N-new` with the
/// offer `replacement offer for sub-N`.
final class ReplacingFakeSignaling: SubscriptionReplacing, Sendable {
    let inner = FakeSignaling(participantID: FeedID("100"), feeds: [CallSessionTests.feed7])
    private let replacements = Locked<[String]>([])
    var replaced: [String] { replacements.withLock { $0 } }

    func replaceSubscription(_ handle: RouterHandleID) async throws -> SubscriptionOffer {
        replacements.withLock { $0.append(handle.rawValue) }
        return SubscriptionOffer(handle: RouterHandleID("\(handle.rawValue)-new"),
                                 offer: SessionDescription(kind: .offer, sdp: "replacement offer for \(handle.rawValue)"))
    }

    var events: AsyncStream<SignalingEvent> { inner.events }
    func join(display: String?) async throws -> RoomJoin { try await inner.join(display: display) }
    func publish(offer: SessionDescription) async throws -> SessionDescription { try await inner.publish(offer: offer) }
    func unpublish() async throws { try await inner.unpublish() }
    func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription { try await inner.restartPublisherIce(offer: offer) }
    func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
        try await inner.republish(offer: offer, display: display, participantID: participantID)
    }
    func subscribe(to feed: FeedID) async throws -> SubscriptionOffer { try await inner.subscribe(to: feed) }
    func start(_ handle: RouterHandleID, answer: SessionDescription) async throws { try await inner.start(handle, answer: answer) }
    func restartIce(_ handle: RouterHandleID) async throws { try await inner.restartIce(handle) }
    func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws { try await inner.configure(handle, streams: streams) }
    func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        try await inner.sendConfigure(handle, streams: streams)
    }
    func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws { try await inner.trickle(candidate, on: handle) }
    func close(_ handle: RouterHandleID) async { await inner.close(handle) }
    func leave() async { await inner.leave() }
    func describePublishedStream(_ description: String) async throws { try await inner.describePublishedStream(description) }
    func isPublishing(_ feed: FeedID) async throws -> Bool? { try await inner.isPublishing(feed) }
}
