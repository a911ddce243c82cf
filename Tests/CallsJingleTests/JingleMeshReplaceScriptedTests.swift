import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// Replacing connections in a mesh, per session, with the wire shapes of the call of two
/// (``JingleCallReplaceScriptedTests``): we are Bob in the negotiated call of three of
/// ``JingleMeshRestartScriptedTests``. What the mesh adds (docs/peer-to-peer.md): a replacement
/// concerns the one session its `sid` names, and is taken only from that session's member.
@Suite(.timeLimit(.minutes(1))) struct JingleMeshReplaceScriptedTests {
    static let aliceDevice = JingleMeshCallSignalingScriptedTests.aliceDevice, carolDevice = JingleMeshCallSignalingScriptedTests.carolDevice
    static let replaceNamespace = "urn:callscope:jingle:friend:0"

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: JingleMeshCallSignalingScriptedTests.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    private func iq(_ id: String, from: String, _ payload: String) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='bob@example.org/r'>\(payload)</iq>"
    }

    private func replacement(sid: String, replacing old: String, from device: String, offer: String) throws -> String {
        var element = JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: device,
                                    session: try JingleSession(sdp: offer, writtenBy: .initiator)).element
        element.children.append(XMPPElement("replaces", namespace: Self.replaceNamespace, attributes: ["sid": old]))
        return element.xmlString()
    }

    private func request(sid: String) -> String {
        "<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='\(sid)'><replace-session xmlns='\(Self.replaceNamespace)'/></jingle>"
    }

    @Test func eachReplacementConcernsItsOwnSessionAndMember() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let call = try await JingleMeshRestartScriptedTests().negotiatedCall()
        func reply(to id: String) -> String? { call.server.sent.first { $0.contains("id=\"\(id)\"") } }
        let carolSid = call.toCarol.subscriber.subscriberId, aliceSid = call.toAlice.subscriber.subscriberId
        let settled = call.events.withLock { $0.count }
        let toAliceBefore = call.sent { $0.contains("to=\"\(Self.aliceDevice)\"") }.count

        // 1. Our link to Carol is replaced: a new session to her replacing ours, ours ended;
        //    her accept is the answer; the new link is named by the new session.
        let newOffer = offer.replacingOccurrences(of: "YRRA", with: "NEWB")
        let replacing = Task { try await call.signaling.replacePublication(SessionDescription(kind: .offer, sdp: newOffer), on: call.toCarol.handle) }
        #expect(await eventually { call.server.sent.contains { $0.contains("<replaces") } })
        let initiate = try #require(call.sent { $0.contains("<replaces") }.first)
        // The <jingle> element's sid comes first (its start tag precedes <replaces/>).
        let newSid = try #require(initiate.firstRange(of: #/sid="([^"]+)"/#).map { String(initiate[$0].dropFirst(5).dropLast()) })
        #expect(initiate.contains("to=\"\(Self.carolDevice)\"") && initiate.contains("action=\"session-initiate\""))
        #expect(initiate.contains("<replaces xmlns=\"\(Self.replaceNamespace)\" sid=\"\(carolSid)\"/>") && newSid != carolSid, "\(initiate)")
        #expect(await eventually { call.server.sent.contains { $0.contains("<alternative-session><sid>\(newSid)</sid>") } })
        call.server.deliver(iq("a1", from: Self.carolDevice, JingleRequest(action: .sessionAccept, sessionID: newSid, responder: Self.carolDevice,
                                                                         session: try JingleSession(sdp: answer, writtenBy: .responder)).element.xmlString()))
        let replaced = try await replacing.value
        #expect(replaced.link.subscriber == RelayedSubscriber(connectionId: Self.carolDevice, subscriberId: newSid))
        #expect(replaced.link.handle != call.toCarol.handle && replaced.answer.sdp.contains("a=ice-ufrag:p/dC"))
        #expect(call.sent { $0.contains("to=\"\(Self.aliceDevice)\"") }.count == toAliceBefore, "nothing to alice")

        // 2. Alice replacing Carol's publication, or asking for our session towards Carol: refused.
        call.server.deliver(iq("h1", from: Self.aliceDevice, try replacement(sid: "evil", replacing: "call1-carol", from: Self.aliceDevice, offer: offer)))
        call.server.deliver(iq("h2", from: Self.aliceDevice, request(sid: newSid)))
        #expect(await eventually { await call.signaling.refusedReplacements == 2 })
        #expect(reply(to: "h1")?.contains("item-not-found") == true && reply(to: "h2")?.contains("item-not-found") == true)

        // 3. Carol's replacement of her publication: our subscription to her only is told.
        call.server.deliver(iq("r1", from: Self.carolDevice, try replacement(sid: "call1-carol2", replacing: "call1-carol", from: Self.carolDevice, offer: newOffer)))
        #expect(await eventually { call.events.withLock { $0.count } == settled + 1 })
        guard case .hangup(let handle, _) = try #require(call.events.withLock { $0.last }) else {
            Issue.record("expected a hangup: \(call.events.withLock { $0 })")
            return await call.end()
        }
        #expect(handle == call.fromCarol.handle)
        let fromCarol2 = try await call.signaling.replaceSubscription(call.fromCarol.handle)
        #expect(fromCarol2.offer.sdp.contains("a=ice-ufrag:NEWB") && fromCarol2.handle != call.fromCarol.handle)
        #expect(try await call.signaling.isPublishing(FeedID(Self.carolDevice)) == true)

        // 4. Carol asks for a new session in place of our new one: a request on that link only;
        //    Alice's session towards us is untouched throughout.
        call.server.deliver(iq("q1", from: Self.carolDevice, request(sid: newSid)))
        #expect(await eventually { call.events.withLock { $0.last } == .replacementRequested(replaced.link.handle) })
        #expect(!call.events.withLock { $0 }.contains { if case .hangup(call.fromAlice.handle, _) = $0 { true } else { false } })
        #expect(!call.sent { $0.contains("sid=\"\(aliceSid)\"") && $0.contains("session-terminate") }.contains { _ in true })
        #expect(await call.signaling.refusedReplacements == 2)
        #expect(await call.signaling.replacementRequests == 1)
        await call.end()
    }
}
