import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// The audio fallback of a call of two over `JingleCallSignaling`, against a scripted XMPP
/// server, as the mesh does it (XEP-0166 `content-modify`; docs/peer-to-peer.md): our
/// subscriber's `configure(send:)` goes to Alice as a `content-modify` of her publication's
/// session, and her `content-modify` of our publication's session says whether she still wants
/// our video. Chromium's offer (fixture): audio is content `0`, video content `1`.
@Suite struct JingleCallAudioFallbackScriptedTests {
    static let aliceDevice = JingleCallSignalingScriptedTests.aliceDevice

    private func iq(_ id: String, from: String, _ request: JingleRequest) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='me@example.org/r'>\(request.element.xmlString())</iq>"
    }

    private func contentModify(sid: String, _ name: String, _ senders: JingleSenders) -> JingleRequest {
        JingleRequest(action: .contentModify, sessionID: sid, session: JingleSession(contents: [JingleContent(creator: .initiator, name: name, senders: senders)]))
    }

    /// In a call with Alice (she proposed, we proceeded), subscribed to her publication and
    /// publishing ours (she accepted): the signalling, the server and our publication's sid.
    private func inACall() async throws -> (signaling: JingleCallSignaling, server: ScriptedXMPPServer, client: XMPPClient, subscription: RouterHandleID, ours: String) {
        let fixtures = JingleCallSignalingScriptedTests.fixtures
        let offer = try String(contentsOf: fixtures.appendingPathComponent("chromium-audio-video-offer.sdp"), encoding: .utf8)
        let answer = try String(contentsOf: fixtures.appendingPathComponent("chromium-audio-video-answer.sdp"), encoding: .utf8)
        let server = JingleCallSignalingScriptedTests.server()
        let client = XMPPClient(
            account: XMPPAccount(jid: JID("me@example.org")!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!, allowsPlainAuthentication: true),
            configuration: XMPPClientConfiguration(pingInterval: .seconds(3600)), transport: { _ in server })
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        _ = try await ScriptedCallee.join(signaling, on: server, callID: "call1", media: ["audio", "video"])
        server.deliver(iq("j1", from: Self.aliceDevice, JingleRequest(action: .sessionInitiate, sessionID: "call1-alice", initiator: Self.aliceDevice,
                                                                        session: try JingleSession(sdp: offer, writtenBy: .initiator))))
        #expect(await eventually { (try? await signaling.isPublishing(FeedID(Self.aliceDevice))) == true })
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        let sid = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "j2").sid
        return (signaling, server, client, subscription.handle, sid)
    }

    /// Our policy pauses Alice's video (mid 1): one `content-modify` of her session with
    /// `senders='none'` on content 1, to her device; the same ask again sends nothing; layers
    /// alone (no `send`), an unknown mid and another handle send nothing; resuming sends
    /// `senders='initiator'`. Before the change `configure` sent nothing at all.
    @Test func ourFallbackAsksAliceWithAContentModifyOfHerSession() async throws {
        let call = try await inACall()
        let modifies = { call.server.sent.filter { $0.contains("action=\"content-modify\"") } }
        try await call.signaling.configure(call.subscription, streams: [RouterStreamConfiguration(mid: "1", send: false)])
        try await call.signaling.configure(call.subscription, streams: [RouterStreamConfiguration(mid: "1", send: false)])
        #expect(modifies().count == 1, "\(modifies())")
        let pause = try #require(modifies().first)
        #expect(pause.contains("sid=\"call1-alice\"") && pause.contains("to=\"\(Self.aliceDevice)\""))
        #expect(pause.contains("name=\"1\"") && pause.contains("senders=\"none\"") && pause.contains("creator=\"initiator\""))
        #expect(!pause.contains("name=\"0\""), "the audio content is not touched")

        try await call.signaling.configure(call.subscription, streams: [RouterStreamConfiguration(mid: "1", substream: 0, temporal: 1)])
        try await call.signaling.configure(call.subscription, streams: [RouterStreamConfiguration(mid: "7", send: false)])
        try await call.signaling.configure(RouterHandleID("elsewhere"), streams: [RouterStreamConfiguration(mid: "1", send: true)])
        #expect(modifies().count == 1, "layers, an unknown mid and another handle send nothing: \(modifies())")

        // The policy's resume carries a layer too: accepted, the layer ignored.
        _ = try await call.signaling.sendConfigure(call.subscription, streams: [RouterStreamConfiguration(mid: "1", send: true, substream: 0, temporal: 2)])
        #expect(modifies().count == 2, "\(modifies())")
        let resume = try #require(modifies().last)
        #expect(resume.contains("sid=\"call1-alice\"") && resume.contains("name=\"1\"") && resume.contains("senders=\"initiator\""))
        await call.signaling.leave()
        await call.client.disconnect()
    }

    /// Alice's policy pauses our video: her `content-modify` of our publication's session with
    /// `senders='none'` on content 1 → she no longer wants our video; one on her own session's
    /// sid or on the audio content alone changes nothing; `senders='initiator'` → wanted again.
    /// Before the change her `content-modify` was ignored (our video stayed wanted).
    @Test func alicesFallbackTurnsOurPublicationsVideoOff() async throws {
        let call = try await inACall()
        #expect(await call.signaling.publicationSubscriberWantsVideo())
        call.server.deliver(iq("m1", from: Self.aliceDevice, contentModify(sid: call.ours, "1", .none)))
        #expect(await eventually { await !call.signaling.publicationSubscriberWantsVideo() })
        #expect(await eventually { call.server.sent.contains { $0.contains("id=\"m1\"") && $0.contains("type=\"result\"") } }, "acknowledged")

        call.server.deliver(iq("m2", from: Self.aliceDevice, contentModify(sid: call.ours, "1", .initiator)))
        #expect(await eventually { await call.signaling.publicationSubscriberWantsVideo() })

        // Not ours, or audio only: video still wanted.
        call.server.deliver(iq("m3", from: Self.aliceDevice, contentModify(sid: "call1-alice", "1", .none)))
        call.server.deliver(iq("m4", from: Self.aliceDevice, contentModify(sid: call.ours, "0", .none)))
        #expect(await eventually { call.server.sent.contains { $0.contains("id=\"m4\"") && $0.contains("type=\"result\"") } })
        #expect(await call.signaling.publicationSubscriberWantsVideo())

        // `senders='responder'` leaves us (the initiator) out too: paused.
        call.server.deliver(iq("m5", from: Self.aliceDevice, contentModify(sid: call.ours, "1", .responder)))
        #expect(await eventually { await !call.signaling.publicationSubscriberWantsVideo() })

        call.server.deliver(iq("m6", from: Self.aliceDevice, contentModify(sid: call.ours, "1", .both)))
        #expect(await eventually { await call.signaling.publicationSubscriberWantsVideo() }, "`both` includes us")

        // A stranger's content-modify is refused and changes nothing.
        call.server.deliver(iq("m7", from: "eve@example.org/x", contentModify(sid: call.ours, "1", .none)))
        #expect(await eventually { call.server.sent.contains { $0.contains("id=\"m7\"") && $0.contains("service-unavailable") } })
        #expect(await call.signaling.publicationSubscriberWantsVideo())
        await call.signaling.leave()
        await call.client.disconnect()
    }
}
