import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// Replacing a relayed connection in a call of two: `JingleCallSignaling` against the scripted
/// XMPP server of ``JingleCallSignalingScriptedTests`` (we are the callee, Alice's device the
/// friend). The wire shapes are docs/peer-to-peer.md's: a new session (`session-initiate`, a
/// fresh sid) holding `<replaces xmlns='urn:callscope:jingle:friend:0' sid='OLD'/>`, the old one
/// ended with XEP-0166's `<alternative-session><sid>NEW</sid>`; the subscriber's request a
/// `session-info` holding `<replace-session xmlns='urn:callscope:jingle:friend:0'/>`. A
/// replacement of a session that is not the sender's is refused with XEP-0166's unknown-session
/// condition (`item-not-found`), a stranger's with `service-unavailable`, each counted.
@Suite(.timeLimit(.minutes(1))) struct JingleCallReplaceScriptedTests {
    static let aliceDevice = JingleCallSignalingScriptedTests.aliceDevice
    static let replaceNamespace = "urn:callscope:jingle:friend:0"

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: JingleCallSignalingScriptedTests.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    private func iq(_ id: String, from: String = Self.aliceDevice, _ payload: String) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='me@example.org/r'>\(payload)</iq>"
    }

    /// Her `session-initiate` of `sid` with `offer`, replacing `old`.
    private func replacement(sid: String, replacing old: String, offer: String) throws -> String {
        var element = JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: Self.aliceDevice,
                                    session: try JingleSession(sdp: offer, writtenBy: .initiator)).element
        element.children.append(XMPPElement("replaces", namespace: Self.replaceNamespace, attributes: ["sid": old]))
        return element.xmlString()
    }

    private func request(sid: String) -> String {
        "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(sid)'><replace-session xmlns='\(Self.replaceNamespace)'/></jingle>"
    }

    @Test func bothDirectionsAreReplacedAsTheSameStream() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleCallSignalingScriptedTests.server()
        let client = server.client()
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        let events = RecordedSignalingEvents(signaling.events)
        func sent(_ predicate: (String) -> Bool) -> [String] { server.sent.filter(predicate) }
        func reply(to id: String) -> String? { server.sent.first { $0.contains("id=\"\(id)\"") } }

        let join = try await ScriptedCallee.join(signaling, on: server, callID: "call1")
        server.deliver(iq("j1", JingleRequest(action: .sessionInitiate, sessionID: "call1-alice", initiator: Self.aliceDevice,
                                              session: try JingleSession(sdp: offer, writtenBy: .initiator)).element.xmlString()))
        #expect(await eventually { events.withLock { $0.count } == 1 })
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        let ourSid = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "a1").sid
        let settled = events.withLock { $0.count }

        // 1. Hostile replacements: a stranger's, one from Alice's other device, one of a session
        //    that is not hers. Each refused with its stanza error and counted; nothing happens.
        let newOffer = offer.replacingOccurrences(of: "YRRA", with: "NEW1")
        server.deliver(iq("h1", from: "eve@example.org/x", try replacement(sid: "evil", replacing: "call1-alice", offer: newOffer)))
        server.deliver(iq("h2", from: "alice@example.org/laptop", try replacement(sid: "other", replacing: "call1-alice", offer: newOffer)))
        server.deliver(iq("h3", try replacement(sid: "call1-x", replacing: "no-such-session", offer: newOffer)))
        server.deliver(iq("h4", request(sid: "no-such-session")))
        #expect(await eventually { await signaling.refusedReplacements == 4 })
        #expect(reply(to: "h1")?.contains("service-unavailable") == true)
        for id in ["h2", "h3", "h4"] { #expect(reply(to: id)?.contains("item-not-found") == true, "\(id): \(reply(to: id) ?? "no reply")") }
        #expect(events.withLock { $0.count } == settled, "no event from a refused replacement")
        #expect(try await signaling.isPublishing(FeedID(Self.aliceDevice)) == true)

        // 2. Her replacement of her publication: acknowledged; our subscription to the old one is
        //    told by a hangup of its handle; the feed stays (no feedUnpublished, no new feed).
        server.deliver(iq("r1", try replacement(sid: "call1-alice2", replacing: "call1-alice", offer: newOffer)))
        #expect(await eventually { events.withLock { $0.count } == settled + 1 })
        guard case .hangup(let hungUp, _) = try #require(events.withLock { $0.last }) else {
            Issue.record("expected a hangup, got \(events.withLock { $0 })")
            return
        }
        #expect(hungUp == subscription.handle)
        #expect(reply(to: "r1")?.contains("type=\"result\"") == true)
        // The replacement is taken at once, on a new handle, with her new offer; nothing is asked.
        let replaced = try await signaling.replaceSubscription(subscription.handle)
        #expect(replaced.handle != subscription.handle && replaced.offer.kind == .offer)
        #expect(replaced.offer.sdp.contains("a=ice-ufrag:NEW1") && !replaced.offer.sdp.contains("YRRA"))
        #expect(sent { $0.contains("replace-session") }.isEmpty)
        // Our answer to it is a new session-accept, of her new session.
        try await signaling.start(replaced.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        #expect(sent { $0.contains("action=\"session-accept\"") && $0.contains("sid=\"call1-alice2\"") }.count == 1)
        // Her old session's terminate (alternative-session) is acknowledged and changes nothing.
        server.deliver(iq("t1", "<jingle xmlns='urn:xmpp:jingle:1' action='session-terminate' sid='call1-alice'><reason><alternative-session><sid>call1-alice2</sid></alternative-session></reason></jingle>"))
        #expect(await eventually { reply(to: "t1") != nil })
        #expect(events.withLock { $0.count } == settled + 1)
        #expect(try await signaling.isPublishing(FeedID(Self.aliceDevice)) == true)

        // 3. Our subscription asks for a new session: a session-info on her current sid; her
        //    replacement ends the wait (no hangup: the subscription already asked).
        let asking = Task { try await signaling.replaceSubscription(replaced.handle) }
        #expect(await eventually { server.sent.contains { $0.contains("replace-session") } })
        let ask = try #require(sent { $0.contains("replace-session") }.first)
        #expect(ask.contains("action=\"session-info\"") && ask.contains("sid=\"call1-alice2\"") && ask.contains("to=\"\(Self.aliceDevice)\""))
        #expect(ask.contains("<replace-session xmlns=\"\(Self.replaceNamespace)\"/>"))
        let thirdOffer = offer.replacingOccurrences(of: "YRRA", with: "NEW2")
        server.deliver(iq("r2", try replacement(sid: "call1-alice3", replacing: "call1-alice2", offer: thirdOffer)))
        let third = try await asking.value
        #expect(third.handle != replaced.handle && third.offer.sdp.contains("a=ice-ufrag:NEW2"))
        #expect(events.withLock { $0.count } == settled + 1, "no hangup when the subscription asked")

        // 4. Her request on our publication: replacementRequested of our publication's handle.
        server.deliver(iq("q1", request(sid: ourSid)))
        #expect(await eventually { events.withLock { $0.last } == .replacementRequested(join.participantHandle) })
        #expect(await signaling.replacementRequests == 1)

        // 5. Our republish: a new session replacing ours, then ours ended (alternative-session);
        //    her accept of the new one is the answer; the participant and handle stay.
        let ourNewOffer = offer.replacingOccurrences(of: "YRRA", with: "OUR2")
        let republishing = Task {
            try await signaling.republish(offer: SessionDescription(kind: .offer, sdp: ourNewOffer), display: "me", participantID: join.participantID)
        }
        #expect(await eventually { server.sent.contains { $0.contains("<replaces") } })
        let initiate = try #require(sent { $0.contains("<replaces") }.first)
        let newSid = try #require(ScriptedCallee.sid(in: initiate))
        #expect(newSid != ourSid && initiate.contains("action=\"session-initiate\""))
        #expect(initiate.contains("<replaces xmlns=\"\(Self.replaceNamespace)\" sid=\"\(ourSid)\"/>") && initiate.contains("ufrag=\"OUR2\""))
        #expect(await eventually { server.sent.contains { $0.contains("action=\"session-terminate\"") && $0.contains("sid=\"\(ourSid)\"") } })
        let terminate = try #require(sent { $0.contains("action=\"session-terminate\"") && $0.contains("sid=\"\(ourSid)\"") }.first)
        #expect(terminate.contains("<alternative-session><sid>\(newSid)</sid></alternative-session>"), "\(terminate)")
        server.deliver(iq("a2", JingleRequest(action: .sessionAccept, sessionID: newSid, responder: Self.aliceDevice,
                                              session: try JingleSession(sdp: answer, writtenBy: .responder)).element.xmlString()))
        let republished = try await republishing.value
        #expect(republished.join.participantID == join.participantID && republished.join.participantHandle == join.participantHandle)
        #expect(republished.answer.kind == .answer && republished.answer.sdp.contains("a=ice-ufrag:p/dC"))
        #expect(await signaling.publicationSubscriber()?.subscriberId == newSid)
        // A late request for the old session: acknowledged, no event, not refused.
        let before = events.withLock { $0.count }
        server.deliver(iq("q2", request(sid: ourSid)))
        #expect(await eventually { reply(to: "q2")?.contains("type=\"result\"") == true })
        try await Task.sleep(for: .milliseconds(50))
        #expect(events.withLock { $0.count } == before)
        #expect(await signaling.refusedReplacements == 4)
        #expect(await signaling.replacementRequests == 1)

        await signaling.leave()
        await client.disconnect()
    }

    @Test func aSubscriptionWaitingForAReplacementEndsWhenHerPublicationEnds() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleCallSignalingScriptedTests.server()
        let client = server.client()
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        _ = try await ScriptedCallee.join(signaling, on: server, callID: "call2")
        server.deliver(iq("j1", JingleRequest(action: .sessionInitiate, sessionID: "call2-alice", initiator: Self.aliceDevice,
                                              session: try JingleSession(sdp: offer, writtenBy: .initiator)).element.xmlString()))
        #expect(await eventually { (try? await signaling.isPublishing(FeedID(Self.aliceDevice))) == true })
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))

        let started = ContinuousClock.now
        let asking = Task { try await signaling.replaceSubscription(subscription.handle) }
        #expect(await eventually { server.sent.contains { $0.contains("replace-session") } })
        server.deliver(iq("t1", "<jingle xmlns='urn:xmpp:jingle:1' action='session-terminate' sid='call2-alice'><reason><success/></reason></jingle>"))
        await #expect(throws: SignalingError.self) { try await asking.value }
        #expect(ContinuousClock.now - started < .seconds(5), "ended by her terminate, not by the 15 s wait")
        await signaling.leave()
        await client.disconnect()
    }
}
