import CallScopeCore
import CallScopeTesting
@testable import Calls
import Foundation
import Testing

/// A relayed call of two on the publishing side (issue 24 item 3: audio fallback "by the
/// publisher lowering what it sends to that subscriber"): when the friend's layer policy falls
/// back to audio, our one publication turns its video track off on the friend's connection, and
/// on again when the friend asks; our stream and the camera switch are not touched. Over a fake
/// relayed signalling (a ``FakeSignaling`` that also answers ``RelayedSignaling``) and the fake
/// engine.
@Suite(.timeLimit(.minutes(1))) struct RelayedTwoPartyFallbackTests {
    /// ``FakeSignaling`` for a call of two: the publication reaches `bob@example.org/b`, who
    /// wants our video until ``setWantsVideo(_:)`` says otherwise.
    final class FakeRelayedSignaling: RelayedSignaling, Sendable {
        let router = FakeSignaling(participantID: FeedID("alice@example.org/a"))
        private let wants = Locked(true)
        var events: AsyncStream<SignalingEvent> { router.events }

        /// The friend's policy fell back to audio (`false`) or wants video again.
        func setWantsVideo(_ wanted: Bool) { wants.withLock { $0 = wanted } }
        func publicationSubscriberWantsVideo() async -> Bool { wants.withLock { $0 } }
        func publicationSubscriber() async -> RelayedSubscriber? { RelayedSubscriber(connectionId: "bob@example.org/b", subscriberId: "sid-1") }

        func join(display: String?) async throws -> RoomJoin { try await router.join(display: display) }
        func publish(offer: SessionDescription) async throws -> SessionDescription { try await router.publish(offer: offer) }
        func unpublish() async throws { try await router.unpublish() }
        func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription { try await router.restartPublisherIce(offer: offer) }
        func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
            try await router.republish(offer: offer, display: display, participantID: participantID)
        }
        func subscribe(to feed: FeedID) async throws -> SubscriptionOffer { try await router.subscribe(to: feed) }
        func start(_ handle: RouterHandleID, answer: SessionDescription) async throws { try await router.start(handle, answer: answer) }
        func restartIce(_ handle: RouterHandleID) async throws { try await router.restartIce(handle) }
        func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws { try await router.configure(handle, streams: streams) }
        func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
            try await router.sendConfigure(handle, streams: streams)
        }
        func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws { try await router.trickle(candidate, on: handle) }
        func close(_ handle: RouterHandleID) async { await router.close(handle) }
        func leave() async { await router.leave() }
        func describePublishedStream(_ description: String) async throws { try await router.describePublishedStream(description) }
        func isPublishing(_ feed: FeedID) async throws -> Bool? { try await router.isPublishing(feed) }
    }

    struct Rig {
        let clock = ManualClock()
        let engine = FakeMediaEngine()
        let signaling = FakeRelayedSignaling()
        let session: CallSession
        let publisher = CallPublisher()

        init() {
            session = CallSession(signaling: signaling, engine: engine, clock: clock, wallClock: { Date(timeIntervalSince1970: 1_800_000_000) },
                                  configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        }

        func publish() async throws {
            try await session.connect(display: "alice")
            try await session.publish(publisher)
            await eventually("answered") { engine.calls.contains { $0.hasPrefix("setRemote") } }
        }

        /// One stats sample: the clock moved by a second, the publishing connection read.
        func sample() async {
            let before = engine.calls.filter { $0.hasPrefix("stats") }.count
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await eventually("sampled") { engine.calls.filter { $0.hasPrefix("stats") }.count > before }
        }

        var videoSwitches: [String] { engine.calls.filter { $0.hasPrefix("setTracksEnabled") && $0.contains(" video ") } }
    }

    /// Bob's policy falls back to audio: at the next sample the video track goes off on the
    /// connection (it reaches Bob only), our stream keeps `hasVideo`; Bob asks again: on.
    @Test func theFriendsAudioFallbackTurnsTheVideoOffOnTheConnectionAndBackOn() async throws {
        let rig = Rig()
        try await rig.publish()
        await rig.sample()
        #expect(rig.videoSwitches.isEmpty, "nothing asked yet")
        rig.signaling.setWantsVideo(false)
        await rig.sample()
        await eventually("video off") { rig.videoSwitches == ["setTracksEnabled pc-1 video false"] }
        #expect(rig.publisher.stream?.hasVideo == true, "our stream still has video: only Bob's connection lowered what it sends")
        await rig.sample()
        #expect(rig.videoSwitches.count == 1, "switched once")
        rig.signaling.setWantsVideo(true)
        await rig.sample()
        await eventually("video on") { rig.videoSwitches == ["setTracksEnabled pc-1 video false", "setTracksEnabled pc-1 video true"] }
        #expect(rig.publisher.stream?.hasVideo == true)
    }

    /// The camera switch and the friend's ask are both needed for video: off by the app while
    /// Bob is paused stays off when Bob resumes, and comes on only with the switch; the stream's
    /// `hasVideo` follows the switch alone.
    @Test func theCameraSwitchAndTheFriendsAskAreBothNeeded() async throws {
        let rig = Rig()
        try await rig.publish()
        rig.signaling.setWantsVideo(false)
        await rig.sample()
        await eventually("video off for Bob") { rig.videoSwitches == ["setTracksEnabled pc-1 video false"] }
        rig.publisher.publishVideo = false
        await rig.sample()
        await eventually("camera off") { rig.publisher.stream?.hasVideo == false }
        #expect(rig.videoSwitches.count == 1, "already off on the engine")
        rig.signaling.setWantsVideo(true)
        await rig.sample()
        await rig.sample()
        #expect(rig.videoSwitches.count == 1, "the camera is still off")
        rig.publisher.publishVideo = true
        await rig.sample()
        await eventually("video on") { rig.videoSwitches.last == "setTracksEnabled pc-1 video true" }
        #expect(rig.publisher.stream?.hasVideo == true)
    }
}
