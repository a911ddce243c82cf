import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// Candidates and ICE restarts of `JingleCallSignaling` against the scripted XMPP server of
/// ``JingleCallSignalingScriptedTests`` (we are the callee, Alice's device the friend). Expected
/// values from the fixtures (offer `YRRA`, answer `p/dC`), XEP-0176 (a `transport-info` whose
/// transports carry `ufrag` and `pwd` and no candidate is an ICE restart; trickled candidates
/// otherwise), RFC 8839 (`pwd` at least 22 characters) and the session-info request shape of
/// friend connections (`<restart-ice xmlns='urn:callscope:jingle:friend:0'/>`).
@Suite(.timeLimit(.minutes(1))) struct JingleCallRestartScriptedTests {
    static let aliceDevice = JingleCallSignalingScriptedTests.aliceDevice
    static let newPassword = "NewPasswordOf23Chars+/x"   // 23 ice-chars (RFC 8839: 22 at least)

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: JingleCallSignalingScriptedTests.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    private func iq(_ id: String, _ payload: String) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(Self.aliceDevice)' to='me@example.org/r'>\(payload)</iq>"
    }

    private func iq(_ id: String, _ request: JingleRequest) -> String { iq(id, request.element.xmlString()) }

    /// A transport-info with new credentials for the audio (0) and video (1) contents.
    private func restart(sid: String, ufrag: String, pwd: String) -> String {
        "<jingle xmlns='urn:xmpp:jingle:1' action='transport-info' sid='\(sid)'>"
            + ["0", "1"].map { "<content creator='initiator' name='\($0)'><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='\(ufrag)' pwd='\(pwd)'/></content>" }.joined()
            + "</jingle>"
    }

    private func trickle(sid: String, content: String = "0", _ line: String) throws -> JingleRequest {
        JingleRequest.transportInfo(sessionID: sid, candidates: [try JingleTrickleCandidate(sdpCandidate: line, sdpMid: content)])
    }

    @Test func candidatesAndRestartsInBothDirections() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleCallSignalingScriptedTests.server()
        let client = server.client()
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        let events = RecordedSignalingEvents(signaling.events)
        func sent(_ predicate: (String) -> Bool) -> [String] { server.sent.filter(predicate) }

        let join = try await ScriptedCallee.join(signaling, on: server, callID: "call1")
        server.deliver(iq("j1", JingleRequest(action: .sessionInitiate, sessionID: "call1-alice", initiator: Self.aliceDevice,
                                              session: try JingleSession(sdp: offer, writtenBy: .initiator))))
        #expect(await eventually { events.withLock { $0.count } == 1 })

        // 1. Her candidates before we answered are held; one of a content her session has not
        //    cannot be applied (counted); a candidate element that does not read is refused.
        server.deliver(iq("c1", try trickle(sid: "call1-alice", "candidate:2 1 udp 2122260223 192.0.2.88 40000 typ host generation 0")))
        server.deliver(iq("c2", try trickle(sid: "call1-alice", content: "7", "candidate:4 1 udp 2122260223 192.0.2.44 40004 typ host generation 0")))
        server.deliver(iq("c3", "<jingle xmlns='urn:xmpp:jingle:1' action='transport-info' sid='call1-alice'><content creator='initiator' name='0'><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1'><candidate foundation='1' component='1' protocol='udp' priority='1' ip='192.0.2.1' port='not-a-port' type='host' generation='0' id='x'/></transport></content></jingle>"))
        #expect(await eventually {
            let unused = await signaling.unusedRemoteCandidates, malformed = await signaling.malformedInputs
            return unused == 1 && malformed == 1
        })
        #expect(sent { $0.contains("id=\"c3\"") && $0.contains("bad-request") }.count == 1)
        #expect(events.withLock { $0.count } == 1, "nothing reaches the call before our answer")

        // 2. We answer: the session-accept goes at once (no wait for our gathering), then the
        //    held candidate reaches our subscription's handle; a later one goes straight on.
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        #expect(sent { $0.contains("action=\"session-accept\"") }.count == 1, "accepted without a candidate of ours")
        server.deliver(iq("c4", try trickle(sid: "call1-alice", "candidate:5 1 udp 2122260223 192.0.2.55 40005 typ host generation 0")))
        #expect(await eventually { events.withLock { $0.count } == 3 })
        let candidates = events.withLock { $0 }.compactMap { event -> (RouterHandleID, IceCandidate?)? in
            if case .remoteCandidate(let handle, let candidate) = event { (handle, candidate) } else { nil }
        }
        #expect(candidates.map(\.0) == [subscription.handle, subscription.handle])
        #expect(candidates.map { $0.1?.sdpMid } == ["0", "0"])
        #expect(candidates[0].1?.candidate.contains("192.0.2.88 40000 typ host") == true)
        #expect(candidates[1].1?.candidate.contains("192.0.2.55 40005 typ host") == true)

        // 3. Our subscription asks her for an ICE restart: a session-info on her sid.
        try await signaling.restartIce(subscription.handle)
        let request = try #require(sent { $0.contains("action=\"session-info\"") }.last)
        #expect(request.contains("sid=\"call1-alice\"") && request.contains("<restart-ice xmlns=\"urn:callscope:jingle:friend:0\"/>"), "\(request)")

        // 4. Her restart: new credentials make a new offer on our subscription (her offer with
        //    them, no candidates, o= version 2); the same again is a repeat; a password under
        //    22 characters is not ICE's: ignored, counted.
        server.deliver(iq("r1", restart(sid: "call1-alice", ufrag: "R2R2", pwd: Self.newPassword)))
        server.deliver(iq("r2", restart(sid: "call1-alice", ufrag: "R2R2", pwd: Self.newPassword)))
        server.deliver(iq("r3", restart(sid: "call1-alice", ufrag: "R3R3", pwd: "short")))
        #expect(await eventually { await signaling.ignoredRestartSignals == 1 })
        // The events reach the test through a reader task: wait for the offer, not only the count.
        #expect(await eventually { events.withLock { $0 }.contains { if case .offer = $0 { true } else { false } } })
        let offers = events.withLock { $0 }.compactMap { event -> (RouterHandleID, SessionDescription)? in
            if case .offer(let handle, let description) = event { (handle, description) } else { nil }
        }
        #expect(offers.count == 1)
        let restartOffer = try #require(offers.first)
        #expect(restartOffer.0 == subscription.handle && restartOffer.1.kind == .offer)
        #expect(restartOffer.1.sdp.components(separatedBy: "a=ice-ufrag:R2R2").count == 3, "both m-lines: \(restartOffer.1.sdp)")
        #expect(restartOffer.1.sdp.contains("a=ice-pwd:\(Self.newPassword)") && !restartOffer.1.sdp.contains("YRRA"))
        #expect(restartOffer.1.sdp.contains("o=- 1 2 IN IP4") && !restartOffer.1.sdp.contains("a=candidate"))
        #expect(restartOffer.1.sdp.contains("a=mid:0") && restartOffer.1.sdp.contains("a=mid:1"))

        // Asked again right after her restart: not sent (her restart answers the same silence).
        let requests = sent { $0.contains("restart-ice") }.count
        try await signaling.restartIce(subscription.handle)
        #expect(sent { $0.contains("restart-ice") }.count == requests)

        // 5. Our answer to her restart: a transport-info with our new credentials, no second accept.
        let restartAnswer = answer.replacingOccurrences(of: "p/dC", with: "NEWA")
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: restartAnswer))
        let answered = try #require(sent { $0.contains("transport-info") && $0.contains("ufrag=\"NEWA\"") }.last)
        #expect(answered.contains("sid=\"call1-alice\"") && answered.contains("pwd=\"8HareieXOTHK2q901FMbcbiT\"") && !answered.contains("<candidate"))
        #expect(sent { $0.contains("action=\"session-accept\"") }.count == 1)

        // 6. Our publication; her session-accept. Her restart request becomes a request on our
        //    publication's handle; one for a sid that is not ours is ignored.
        let sid = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "a1").sid
        let ask = "<restart-ice xmlns='urn:callscope:jingle:friend:0'/>"
        server.deliver(iq("q1", "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(sid)'>\(ask)</jingle>"))
        server.deliver(iq("q2", "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='elsewhere'>\(ask)</jingle>"))
        #expect(await eventually { await signaling.ignoredRestartSignals == 2 })
        #expect(await eventually { events.withLock { $0.last } == .iceRestartRequested(join.participantHandle) })

        // 7. Our restart: our new credentials as a transport-info on our sid; her request while it
        //    waits makes no event; her credentials make the answer (o= version 2, no candidate).
        let ourRestart = offer.replacingOccurrences(of: "YRRA", with: "OURS")
        let restarting = Task { try await signaling.restartPublisherIce(offer: SessionDescription(kind: .offer, sdp: ourRestart)) }
        #expect(await eventually { server.sent.contains { $0.contains("transport-info") && $0.contains("ufrag=\"OURS\"") } })
        let ours = try #require(sent { $0.contains("ufrag=\"OURS\"") }.first)
        #expect(ours.contains("sid=\"\(sid)\"") && ours.contains("pwd=\"Rb1KoePGa+YpZuSJ/8l3P+7Y\"") && !ours.contains("<candidate"))
        let eventsBefore = events.withLock { $0.count }
        server.deliver(iq("q3", "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(sid)'>\(ask)</jingle>"))
        server.deliver(iq("r4", restart(sid: sid, ufrag: "ALC2", pwd: Self.newPassword)))
        let theirs = try await restarting.value
        #expect(theirs.kind == .answer && theirs.sdp.components(separatedBy: "a=ice-ufrag:ALC2").count == 3)
        #expect(!theirs.sdp.contains("p/dC") && theirs.sdp.contains("o=- 1 2 IN IP4") && !theirs.sdp.contains("a=candidate"))
        #expect(events.withLock { $0.count } == eventsBefore, "no request while ours waited")
        // Her candidate on our sid goes to our publication's handle.
        server.deliver(iq("c5", try trickle(sid: sid, "candidate:6 1 udp 2122260223 192.0.2.66 40006 typ host generation 1")))
        #expect(await eventually {
            events.withLock { $0.last }.map { if case .remoteCandidate(join.participantHandle, let c) = $0 { c?.candidate.contains("192.0.2.66") == true } else { false } } == true
        })
        // Credentials nobody waits for: ignored, counted.
        server.deliver(iq("r5", restart(sid: sid, ufrag: "ALC3", pwd: Self.newPassword)))
        #expect(await eventually { await signaling.ignoredRestartSignals == 3 })
        #expect(sent { $0.contains("id=\"r5\"") && $0.contains("type=\"result\"") }.count == 1, "acknowledged")

        await signaling.leave()
        await client.disconnect()
    }

    @Test func whenTheStreamComesBackBothSessionsRestart() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleCallSignalingScriptedTests.server()   // logs in again after the cut
        let client = server.client(reconnectionDelays: [.milliseconds(50)])
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        let events = RecordedSignalingEvents(signaling.events)
        let join = try await ScriptedCallee.join(signaling, on: server, callID: "call3")

        // The stream cut and back before anything was negotiated: nothing to restart.
        let binds = server.sent.filter { $0.contains("<bind") }.count
        server.end(XMPPError(.transport, "cut"))
        #expect(await eventually { server.sent.filter { $0.contains("<bind") }.count == binds + 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(events.withLock { $0 }.isEmpty && !server.sent.contains { $0.contains("restart-ice") })

        // Her publication, our subscription, our publication, all accepted.
        server.deliver(iq("j1", JingleRequest(action: .sessionInitiate, sessionID: "call3-alice", initiator: Self.aliceDevice,
                                              session: try JingleSession(sdp: offer, writtenBy: .initiator))))
        #expect(await eventually { events.withLock { $0.count } == 1 })
        let subscription = try await signaling.subscribe(to: FeedID(Self.aliceDevice))
        try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
        _ = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "a1")

        // Cut again: once back, our publication is asked to restart (through the call layer)
        // and she is asked to restart hers.
        server.end(XMPPError(.transport, "cut"))
        #expect(await eventually { events.withLock { $0.last } == .iceRestartRequested(join.participantHandle) })
        #expect(await eventually { server.sent.contains { $0.contains("restart-ice") } })
        let request = try #require(server.sent.first { $0.contains("restart-ice") })
        #expect(request.contains("action=\"session-info\"") && request.contains("sid=\"call3-alice\"") && request.contains("to=\"\(Self.aliceDevice)\""))
        #expect(await signaling.restartsAfterStreamReturns == 2)
        await signaling.leave()
        await client.disconnect()
    }

    @Test func aRestartNobodyAnswersFailsWithinFiveSecondsAndTheNextOneWorks() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleCallSignalingScriptedTests.server()
        let client = server.client()
        try await client.connect()
        let signaling = ScriptedCallee.signaling(client)
        _ = try await ScriptedCallee.join(signaling, on: server, callID: "call2")
        // Before our publication is accepted, a restart is refused with a typed error.
        await #expect(throws: SignalingError.self) { try await signaling.restartPublisherIce(offer: SessionDescription(kind: .offer, sdp: offer)) }
        let sid = try await ScriptedCallee.publishAccepted(signaling, on: server, offer: offer, answer: answer, acceptID: "a1").sid

        let started = ContinuousClock.now
        await #expect(throws: SignalingError.self) {
            try await signaling.restartPublisherIce(offer: SessionDescription(kind: .offer, sdp: offer.replacingOccurrences(of: "YRRA", with: "TRY1")))
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(5) && waited < .seconds(7), "\(waited)")
        let retry = Task { try await signaling.restartPublisherIce(offer: SessionDescription(kind: .offer, sdp: offer.replacingOccurrences(of: "YRRA", with: "TRY2"))) }
        #expect(await eventually { server.sent.contains { $0.contains("ufrag=\"TRY2\"") } })
        server.deliver(iq("r1", restart(sid: sid, ufrag: "ANS2", pwd: Self.newPassword)))
        #expect(try await retry.value.sdp.contains("a=ice-ufrag:ANS2"))
        await signaling.leave()
        await client.disconnect()
    }
}
