import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// `JingleCallSignaling` on the callee's side against a scripted XMPP server: Alice's device
/// proposes (XEP-0353), publishes with Chromium's audio/video offer (a Jingle session-initiate
/// built by the Jingle module from the fixture), we subscribe and answer, we publish and she
/// accepts, then she stops publishing and leaves. Expected values are read off the fixtures
/// (ICE username fragments `YRRA` in the offer, `p/dC` in the answer) and XEP-0353/XEP-0166.
@Suite struct JingleCallSignalingScriptedTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JingleTests/Fixtures")
    static let aliceDevice = "alice@example.org/phone"

    /// PLAIN login, an empty roster; every IQ set to Alice's device is acknowledged by her.
    static func server() -> ScriptedXMPPServer {
        ScriptedXMPPServer { element, server in
            guard element.name == "iq", element.attributes["type"] == "set", element.attributes["to"] == aliceDevice else { return }
            server.deliver("<iq xmlns='jabber:client' type='result' id='\(element.attributes["id"] ?? "")' from='\(aliceDevice)'/>")
        }
    }

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    /// A Jingle IQ from `from` carrying `request`.
    private func iq(_ id: String, from: String, _ request: JingleRequest) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='me@example.org/r'>\(request.element.xmlString())</iq>"
    }

    @Test func calleeProceedsSubscribesPublishesAndSeesTheFriendLeave() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = Self.server()
        let client = server.client()
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        let events = RecordedSignalingEvents(signaling.events)

        // XEP-0353: a stranger's proposal is ignored; Alice's is answered with proceed to her device.
        let joining = Task { try await signaling.join(display: "me") }
        #expect(await eventually { server.sent.contains { $0.contains("<bind") } })
        try await Task.sleep(for: .milliseconds(50))   // the join registered its handlers
        server.deliver("<message xmlns='jabber:client' type='chat' from='eve@example.org/x'><propose xmlns='urn:xmpp:jingle-message:0' id='evil'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='video'/></propose></message>")
        server.deliver("<message xmlns='jabber:client' type='chat' from='\(Self.aliceDevice)'><propose xmlns='urn:xmpp:jingle-message:0' id='call1'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'/><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='video'/></propose></message>")
        let join = try await joining.value
        #expect(join.participantID == FeedID("me@example.org/r"))
        #expect(join.feeds.isEmpty)
        #expect(join.attendees.map(\.id) == [FeedID(Self.aliceDevice)])
        #expect(server.sent.contains { $0.contains("<proceed") && $0.contains("id=\"call1\"") && $0.contains("to=\"\(Self.aliceDevice)\"") })
        #expect(!server.sent.contains { $0.contains("id=\"evil\"") }, "nothing goes to the stranger")

        // Her publication: a session-initiate of her own sid → feedsPublished with audio and video.
        let initiate = JingleRequest(action: .sessionInitiate, sessionID: "call1-alice", initiator: Self.aliceDevice,
                                     session: try JingleSession(sdp: offer, writtenBy: .initiator))
        server.deliver(iq("j1", from: Self.aliceDevice, initiate))
        server.deliver(iq("j2", from: "eve@example.org/x", initiate))
        let published = RouterFeed(id: FeedID(Self.aliceDevice), display: "alice@example.org", hasAudio: true, hasVideo: true)
        #expect(await eventually { events.withLock { $0 } == [.feedsPublished([published])] })
        #expect(server.sent.contains { $0.contains("id=\"j1\"") && $0.contains("type=\"result\"") })
        #expect(await eventually { server.sent.contains { $0.contains("id=\"j2\"") && $0.contains("service-unavailable") } }, "a stranger's Jingle is refused")
        #expect(try await signaling.isPublishing(FeedID(Self.aliceDevice)) == true)

        // We subscribe: her offer; our answer goes as a session-accept at once, our candidates
        // trickle after it.
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        #expect(subscription.offer.kind == .offer && subscription.offer.sdp.contains("a=ice-ufrag:YRRA"))
        await #expect(throws: SignalingError.self) { try await signaling.subscribe(to: FeedID(Self.aliceDevice)) }
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        let accept = try #require(server.sent.first { $0.contains("action=\"session-accept\"") }, "the accept does not wait for our candidates")
        #expect(accept.contains("sid=\"call1-alice\"") && accept.contains("p/dC"))
        try await signaling.trickle(IceCandidate(candidate: "candidate:1 1 udp 2122260223 192.0.2.77 50000 typ host generation 0 ufrag p/dC", sdpMid: "0", sdpMLineIndex: 0), on: subscription.handle)
        #expect(await eventually { server.sent.contains { $0.contains("transport-info") && $0.contains("sid=\"call1-alice\"") && $0.contains("192.0.2.77") } })

        // We publish: a session-initiate with a sid of ours; her session-accept is the answer.
        let (theirAnswer, sid) = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "j3")
        #expect(sid.hasPrefix("call1-") && sid != "call1-alice", "a sid per direction: \(sid)")
        #expect(theirAnswer.kind == .answer && theirAnswer.sdp.contains("a=ice-ufrag:p/dC") && theirAnswer.sdp.contains("a=mid:1"))

        // Her trickled candidate reaches our publication's handle. Our own goes as a
        // transport-info of our sid.
        let candidate = try JingleTrickleCandidate(sdpCandidate: "candidate:2 1 udp 2122260223 192.0.2.88 40000 typ host generation 0", sdpMid: "0")
        server.deliver(iq("j4", from: Self.aliceDevice, JingleRequest.transportInfo(sessionID: sid, candidates: [candidate])))
        let applied = SignalingEvent.remoteCandidate(join.participantHandle, IceCandidate(candidate: candidate.sdpCandidate, sdpMid: "0", sdpMLineIndex: nil))
        #expect(await eventually { events.withLock { $0 } == [.feedsPublished([published]), applied] })
        #expect(await signaling.unusedRemoteCandidates == 0)
        try await signaling.trickle(IceCandidate(candidate: "candidate:3 1 udp 2122260223 192.0.2.99 50001 typ host generation 0", sdpMid: "0", sdpMLineIndex: 0), on: join.participantHandle)
        #expect(await eventually { server.sent.contains { $0.contains("transport-info") && $0.contains("sid=\"\(sid)\"") && $0.contains("192.0.2.99") } })

        // Malformed input from her: a Jingle IQ without a sid refused with bad-request, a
        // XEP-0353 message without an id dropped; both counted, nothing else happens.
        server.deliver("<iq xmlns='jabber:client' type='set' id='j9' from='\(Self.aliceDevice)'><jingle xmlns='urn:xmpp:jingle:1' action='session-info'/></iq>")
        server.deliver("<message xmlns='jabber:client' type='chat' from='\(Self.aliceDevice)'><propose xmlns='urn:xmpp:jingle-message:0'/></message>")
        #expect(await eventually { await signaling.malformedInputs == 2 })
        #expect(server.sent.contains { $0.contains("id=\"j9\"") && $0.contains("bad-request") })

        // She stops publishing, then leaves (XEP-0353 finish).
        server.deliver(iq("j5", from: Self.aliceDevice, JingleRequest(action: .sessionTerminate, sessionID: "call1-alice", reason: JingleReason(.success))))
        server.deliver("<message xmlns='jabber:client' type='chat' from='\(Self.aliceDevice)'><finish xmlns='urn:xmpp:jingle-message:0' id='call1'><reason xmlns='urn:xmpp:jingle:1'><success/></reason></finish></message>")
        #expect(await eventually { events.withLock { $0.count } == 4 })
        #expect(events.withLock { $0 } == [.feedsPublished([published]), applied, .feedUnpublished(FeedID(Self.aliceDevice)), .participantLeft(FeedID(Self.aliceDevice))])
        #expect(try await signaling.isPublishing(FeedID(Self.aliceDevice)) == false)

        // No router: configure does nothing; an ICE restart of a subscription that ended throws a typed error.
        try await signaling.configure(subscription.handle, streams: [])
        await #expect(throws: SignalingError.self) { try await signaling.restartIce(subscription.handle) }

        // We leave: our session terminated, finish sent.
        await signaling.leave()
        #expect(server.sent.contains { $0.contains("session-terminate") && $0.contains("sid=\"\(sid)\"") })
        #expect(server.sent.contains { $0.contains("<finish") && $0.contains("id=\"call1\"") })
        await client.disconnect()
    }
}
