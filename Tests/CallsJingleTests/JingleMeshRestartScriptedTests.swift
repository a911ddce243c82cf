import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// Candidates and ICE restarts of `JingleMeshCallSignaling`, per session, against the scripted
/// XMPP server of ``JingleMeshCallSignalingScriptedTests`` (we are Bob; Alice's and Carol's
/// devices the members). The wire shapes are those of the call of two
/// (``JingleCallRestartScriptedTests``): XEP-0176 (a `transport-info` whose transports carry
/// `ufrag` and `pwd` and no candidate is an ICE restart), RFC 8839 (`pwd` 22 characters at
/// least), `<restart-ice xmlns='urn:callscope:jingle:friend:0'/>`. What the mesh adds, from
/// docs/peer-to-peer.md: each signal concerns the one session its `sid` names, and only when
/// it comes from that session's member.
@Suite(.timeLimit(.minutes(1))) struct JingleMeshRestartScriptedTests {
    static let aliceDevice = JingleMeshCallSignalingScriptedTests.aliceDevice, carolDevice = JingleMeshCallSignalingScriptedTests.carolDevice
    static let newPassword = "NewPasswordOf23Chars+/x"   // 23 ice-chars
    static let ask = "<restart-ice xmlns='urn:callscope:jingle:friend:0'/>"

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: JingleMeshCallSignalingScriptedTests.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    private func iq(_ id: String, from: String, _ payload: String) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='bob@example.org/r'>\(payload)</iq>"
    }

    private func iq(_ id: String, from: String, _ request: JingleRequest) -> String { iq(id, from: from, request.element.xmlString()) }

    private func message(from: String, _ body: String) -> String {
        "<message xmlns='jabber:client' type='chat' from='\(from)'>\(body)</message>"
    }

    /// A transport-info with new credentials for the audio (0) and video (1) contents.
    private func restart(sid: String, ufrag: String, pwd: String = Self.newPassword) -> String {
        "<jingle xmlns='urn:xmpp:jingle:1' action='transport-info' sid='\(sid)'>"
            + ["0", "1"].map { "<content creator='initiator' name='\($0)'><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='\(ufrag)' pwd='\(pwd)'/></content>" }.joined()
            + "</jingle>"
    }

    private func trickle(sid: String, _ line: String) throws -> String {
        JingleRequest.transportInfo(sessionID: sid, candidates: [try JingleTrickleCandidate(sdpCandidate: line, sdpMid: "0")]).element.xmlString()
    }

    private func initiatedSid(_ server: ScriptedXMPPServer, to device: String) -> String? {
        guard let sent = server.sent.first(where: { $0.contains("action=\"session-initiate\"") && $0.contains("to=\"\(device)\"") }),
              let range = sent.firstRange(of: #/sid="([^"]+)"/#) else { return nil }
        return String(sent[range].dropFirst(5).dropLast())
    }

    /// A call of three, every session negotiated: our publications to Alice and Carol accepted,
    /// theirs (`call1-alice`, `call1-carol`) subscribed and answered.
    struct Call {
        let server: ScriptedXMPPServer
        let client: XMPPClient
        let signaling: JingleMeshCallSignaling
        let events: RecordedSignalingEvents
        let toAlice: MeshPublicationLink, toCarol: MeshPublicationLink
        let fromAlice: SubscriptionOffer, fromCarol: SubscriptionOffer

        func sent(_ predicate: (String) -> Bool) -> [String] { server.sent.filter(predicate) }
        func end() async {
            await signaling.leave()
            await client.disconnect()
        }
    }

    func negotiatedCall() async throws -> Call {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = JingleMeshCallSignalingScriptedTests.server()   // logs in again after a cut
        let client = XMPPClient(
            account: XMPPAccount(jid: JID("bob@example.org")!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!, allowsPlainAuthentication: true),
            configuration: XMPPClientConfiguration(pingInterval: .seconds(3600), reconnectionDelays: [.milliseconds(50)]), transport: { _ in server })
        try await client.connect()
        let signaling = JingleMeshCallSignaling(client: client, friends: [JID("alice@example.org")!, JID("carol@example.org")!], role: .callee,
                                                answerTimeout: .seconds(5), gatheringWait: .milliseconds(50))
        let events = RecordedSignalingEvents(signaling.events)
        let joining = Task { try await signaling.join(display: "bob") }
        #expect(await eventually { server.sent.contains { $0.contains("<bind") } })
        try await Task.sleep(for: .milliseconds(50))
        server.deliver(message(from: Self.aliceDevice, "<propose xmlns='urn:xmpp:jingle-message:0' id='call1'>\(JingleMeshCallSignalingScriptedTests.group)</propose>"))
        _ = try await joining.value
        server.deliver(message(from: Self.carolDevice, "<proceed xmlns='urn:xmpp:jingle-message:0' id='call1'/>"))
        #expect(await eventually { events.withLock { $0.count } == 1 })

        let toAlice = try await signaling.openPublication(to: FeedID(Self.aliceDevice))
        let toCarol = try await signaling.openPublication(to: FeedID(Self.carolDevice))
        for (link, device) in [(toAlice, Self.aliceDevice), (toCarol, Self.carolDevice)] {
            let offering = Task { try await signaling.offerPublication(SessionDescription(kind: .offer, sdp: offer), on: link.handle) }
            #expect(await eventually { initiatedSid(server, to: device) == link.subscriber.subscriberId })
            server.deliver(iq("a-\(device)", from: device, JingleRequest(action: .sessionAccept, sessionID: link.subscriber.subscriberId, responder: device,
                                                                         session: try JingleSession(sdp: answer, writtenBy: .responder))))
            _ = try await offering.value
        }
        var subscriptions: [SubscriptionOffer] = []
        for (sid, device) in [("call1-alice", Self.aliceDevice), ("call1-carol", Self.carolDevice)] {
            server.deliver(iq("i-\(sid)", from: device, JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: device,
                                                                       session: try JingleSession(sdp: offer, writtenBy: .initiator))))
            // Her candidate before our answer is held.
            server.deliver(iq("c-\(sid)", from: device, try trickle(sid: sid, "candidate:2 1 udp 2122260223 192.0.2.88 40000 typ host generation 0")))
            let subscription = try await signaling.subscribe(to: FeedID(device))
            #expect(!events.withLock { $0 }.contains { if case .remoteCandidate(subscription.handle, _) = $0 { true } else { false } }, "held until our answer")
            try await signaling.start(subscription.handle, answer: SessionDescription(kind: .answer, sdp: answer))
            #expect(await eventually { server.sent.contains { $0.contains("action=\"session-accept\"") && $0.contains("sid=\"\(sid)\"") } })
            #expect(await eventually { events.withLock { $0 }.contains { if case .remoteCandidate(subscription.handle, _) = $0 { true } else { false } } })
            subscriptions.append(subscription)
        }
        return Call(server: server, client: client, signaling: signaling, events: events,
                    toAlice: toAlice, toCarol: toCarol, fromAlice: subscriptions[0], fromCarol: subscriptions[1])
    }

    @Test func candidatesGoToTheSessionTheyNameFromItsMemberOnly() async throws {
        let call = try await negotiatedCall()
        let carolSid = call.toCarol.subscriber.subscriberId
        // Carol's candidate on our session towards her: its handle. Alice's on that session (not
        // hers) and one of a content the session has not: not applied, counted.
        let unusedBefore = await call.signaling.unusedRemoteCandidates
        call.server.deliver(iq("t1", from: Self.carolDevice, try trickle(sid: carolSid, "candidate:3 1 udp 2122260223 192.0.2.33 40003 typ host generation 0")))
        call.server.deliver(iq("t2", from: Self.aliceDevice, try trickle(sid: carolSid, "candidate:4 1 udp 2122260223 192.0.2.44 40004 typ host generation 0")))
        call.server.deliver(iq("t3", from: Self.carolDevice, JingleRequest.transportInfo(sessionID: carolSid, candidates: [
            try JingleTrickleCandidate(sdpCandidate: "candidate:5 1 udp 2122260223 192.0.2.55 40005 typ host generation 0", sdpMid: "7"),
        ]).element.xmlString()))
        #expect(await eventually { await call.signaling.unusedRemoteCandidates == unusedBefore + 2 })
        #expect(await eventually { call.events.withLock { $0 }.contains { if case .remoteCandidate(call.toCarol.handle, _) = $0 { true } else { false } } })
        let applied = call.events.withLock { $0 }.compactMap { event -> (RouterHandleID, String)? in
            if case .remoteCandidate(let handle, let candidate) = event { (handle, candidate?.candidate ?? "") } else { nil }
        }
        #expect(applied.filter { $0.0 == call.toCarol.handle }.map(\.1).count == 1)
        #expect(applied.first { $0.0 == call.toCarol.handle }?.1.contains("192.0.2.33 40003") == true)
        #expect(!applied.contains { $0.1.contains("192.0.2.44") || $0.1.contains("192.0.2.55") })
        // The candidates held before our answers went to each subscription's handle once.
        #expect(applied.filter { $0.0 == call.fromAlice.handle }.count == 1 && applied.filter { $0.0 == call.fromCarol.handle }.count == 1)
        await call.end()
    }

    @Test func aRestartConcernsOneSessionInEachDirection() async throws {
        let call = try await negotiatedCall()
        let aliceSid = call.toAlice.subscriber.subscriberId, carolSid = call.toCarol.subscriber.subscriberId
        // 1. Carol asks us to restart our session towards her: a request on that handle only.
        //    Alice asking for Carol's session is ignored (not hers), as is one for no session.
        call.server.deliver(iq("q1", from: Self.carolDevice, "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(carolSid)'>\(Self.ask)</jingle>"))
        call.server.deliver(iq("q2", from: Self.aliceDevice, "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(carolSid)'>\(Self.ask)</jingle>"))
        call.server.deliver(iq("q3", from: Self.aliceDevice, "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='elsewhere'>\(Self.ask)</jingle>"))
        #expect(await eventually { await call.signaling.ignoredRestartSignals == 2 })
        // The events reach the test through a reader task: wait for the request too.
        #expect(await eventually { call.events.withLock { $0 }.contains { if case .iceRestartRequested = $0 { true } else { false } } })
        let requests = call.events.withLock { $0 }.filter { if case .iceRestartRequested = $0 { true } else { false } }
        #expect(requests == [.iceRestartRequested(call.toCarol.handle)])

        // 2. Our restart towards Carol: our new credentials in her session only; her credentials
        //    make the answer (o= version 2, her ufrag on both m-lines, no candidate).
        let offer = try fixture("chromium-audio-video-offer.sdp")
        let restarting = Task {
            try await call.signaling.restartPublicationIce(offer: SessionDescription(kind: .offer, sdp: offer.replacingOccurrences(of: "YRRA", with: "OURS")), on: call.toCarol.handle)
        }
        #expect(await eventually { call.server.sent.contains { $0.contains("ufrag=\"OURS\"") } })
        let ours = call.sent { $0.contains("ufrag=\"OURS\"") }
        #expect(ours.count == 1 && ours[0].contains("sid=\"\(carolSid)\"") && ours[0].contains("to=\"\(Self.carolDevice)\"") && !ours[0].contains("<candidate"))
        // Alice's credentials on Carol's session answer nothing (ignored); Carol's do.
        call.server.deliver(iq("r0", from: Self.aliceDevice, restart(sid: carolSid, ufrag: "ALC9")))
        #expect(await eventually { await call.signaling.ignoredRestartSignals == 3 })
        call.server.deliver(iq("r1", from: Self.carolDevice, restart(sid: carolSid, ufrag: "CRL2")))
        let answer = try await restarting.value
        #expect(answer.kind == .answer && answer.sdp.components(separatedBy: "a=ice-ufrag:CRL2").count == 3, "\(answer.sdp)")
        #expect(answer.sdp.contains("o=- 1 2 IN IP4") && !answer.sdp.contains("a=candidate") && !answer.sdp.contains("p/dC"))
        #expect(call.sent { $0.contains("transport-info") && $0.contains("sid=\"\(aliceSid)\"") }.isEmpty, "Alice's session untouched")
        // The restart of a handle that is no session of ours: a typed error.
        await #expect(throws: SignalingError.self) {
            try await call.signaling.restartPublicationIce(offer: SessionDescription(kind: .offer, sdp: offer), on: RouterHandleID("nobody"))
        }

        // 3. Carol restarts her publication: an offer on our subscription to her only; our
        //    answer goes back as a transport-info in her session, no second accept.
        call.server.deliver(iq("r2", from: Self.carolDevice, restart(sid: "call1-carol", ufrag: "CRL3")))
        #expect(await eventually { call.events.withLock { $0 }.contains { if case .offer = $0 { true } else { false } } })
        let offers = call.events.withLock { $0 }.compactMap { event -> (RouterHandleID, SessionDescription)? in
            if case .offer(let handle, let description) = event { (handle, description) } else { nil }
        }
        #expect(offers.count == 1 && offers[0].0 == call.fromCarol.handle)
        #expect(offers[0].1.sdp.components(separatedBy: "a=ice-ufrag:CRL3").count == 3 && offers[0].1.sdp.contains("o=- 1 2 IN IP4"))
        let restartAnswer = try fixture("chromium-audio-video-answer.sdp").replacingOccurrences(of: "p/dC", with: "BOB2")
        try await call.signaling.start(call.fromCarol.handle, answer: SessionDescription(kind: .answer, sdp: restartAnswer))
        let answered = call.sent { $0.contains("ufrag=\"BOB2\"") }
        #expect(answered.count == 1 && answered[0].contains("sid=\"call1-carol\"") && answered[0].contains("to=\"\(Self.carolDevice)\""))
        #expect(call.sent { $0.contains("action=\"session-accept\"") && $0.contains("sid=\"call1-carol\"") }.count == 1)

        // 4. Our subscription to Alice asks her for a restart: a session-info in her session.
        try await call.signaling.restartIce(call.fromAlice.handle)
        let asked = call.sent { $0.contains("restart-ice") }
        #expect(asked.count == 1 && asked[0].contains("sid=\"call1-alice\"") && asked[0].contains("to=\"\(Self.aliceDevice)\""), "\(asked)")
        await call.end()
    }

    @Test func whenTheStreamComesBackEverySessionRestarts() async throws {
        let call = try await negotiatedCall()
        call.server.end(XMPPError(.transport, "cut"))
        // Our two publications through the call layer, a request to each member for hers.
        #expect(await eventually {
            let requested = call.events.withLock { $0 }.filter { if case .iceRestartRequested = $0 { true } else { false } }
            return Set(requested) == [.iceRestartRequested(call.toAlice.handle), .iceRestartRequested(call.toCarol.handle)] && requested.count == 2
        })
        #expect(await eventually { call.server.sent.filter { $0.contains("restart-ice") }.count == 2 })
        let asked = call.sent { $0.contains("restart-ice") }
        #expect(asked.contains { $0.contains("sid=\"call1-alice\"") && $0.contains("to=\"\(Self.aliceDevice)\"") })
        #expect(asked.contains { $0.contains("sid=\"call1-carol\"") && $0.contains("to=\"\(Self.carolDevice)\"") })
        #expect(await call.signaling.restartsAfterStreamReturns == 4)
        await call.end()
    }

    @Test func aRestartWaitingForAMemberWhoLeavesFailsAtOnce() async throws {
        let call = try await negotiatedCall()
        let offer = try fixture("chromium-audio-video-offer.sdp").replacingOccurrences(of: "YRRA", with: "GONE")
        let restarting = Task { try await call.signaling.restartPublicationIce(offer: SessionDescription(kind: .offer, sdp: offer), on: call.toCarol.handle) }
        #expect(await eventually { call.server.sent.contains { $0.contains("ufrag=\"GONE\"") } })
        let started = ContinuousClock.now
        call.server.deliver(message(from: Self.carolDevice, "<finish xmlns='urn:xmpp:jingle-message:0' id='call1'><reason xmlns='urn:xmpp:jingle:1'><success/></reason></finish>"))
        await #expect(throws: SignalingError.self) { try await restarting.value }
        #expect(ContinuousClock.now - started < .seconds(4), "not the 5 s answer timeout")
        await call.end()
    }
}
