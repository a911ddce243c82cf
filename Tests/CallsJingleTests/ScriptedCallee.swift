import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import XMPP
import XMPPClient
import XMPPTesting

/// The callee's side of a call of two that Alice's device proposes, for the scripted tests of
/// `JingleCallSignaling` (the server is ``JingleCallSignalingScriptedTests/server()``).
enum ScriptedCallee {
    /// Our signalling towards Alice as the callee (5 s answer and gathering waits).
    static func signaling(_ client: XMPPClient) -> JingleCallSignaling {
        JingleCallSignaling(client: client, friend: JID("alice@example.org")!, role: .callee, answerTimeout: .seconds(5), gatheringWait: .seconds(5))
    }

    /// `signaling` joined to the call Alice proposes with `callID` (XEP-0353, one description
    /// per `media`): the join starts, the client is bound, the join registers its handlers, then
    /// her propose arrives and we proceed.
    static func join(_ signaling: JingleCallSignaling, on server: ScriptedXMPPServer, callID: String, media: [String] = ["audio"]) async throws -> RoomJoin {
        let joining = Task { try await signaling.join(display: "me") }
        guard await eventually({ server.sent.contains { $0.contains("<bind") } }) else { throw ScriptedCallFailure("the client never bound a resource") }
        try await Task.sleep(for: .milliseconds(50))
        let descriptions = media.map { "<description xmlns='urn:xmpp:jingle:apps:rtp:1' media='\($0)'/>" }.joined()
        server.deliver("<message xmlns='jabber:client' type='chat' from='\(JingleCallSignalingScriptedTests.aliceDevice)'><propose xmlns='urn:xmpp:jingle-message:0' id='\(callID)'>\(descriptions)</propose></message>")
        return try await joining.value
    }
}

extension ScriptedCallee {
    /// The sid of the first `sid="…"` in `stanza`.
    static func sid(in stanza: String) -> String? {
        stanza.firstRange(of: #/sid="([^"]+)"/#).map { String(stanza[$0].dropFirst(5).dropLast()) }
    }

    /// Our publication with `offer`, accepted by Alice's device with `answer` (her
    /// `session-accept` in the IQ `acceptID`): her answer as the signalling returns it, and our
    /// publication's sid.
    static func publishAccepted(_ signaling: JingleCallSignaling, on server: ScriptedXMPPServer, offer: String, answer: String,
                                acceptID: String) async throws -> (answer: SessionDescription, sid: String) {
        let publishing = Task { try await signaling.publish(offer: SessionDescription(kind: .offer, sdp: offer)) }
        guard await eventually({ server.sent.contains { $0.contains("action=\"session-initiate\"") } }),
              let initiate = server.sent.first(where: { $0.contains("action=\"session-initiate\"") }), let sid = sid(in: initiate)
        else {
            publishing.cancel()
            throw ScriptedCallFailure("our publication's session-initiate never went out")
        }
        let alice = JingleCallSignalingScriptedTests.aliceDevice
        let accept = JingleRequest(action: .sessionAccept, sessionID: sid, responder: alice, session: try JingleSession(sdp: answer, writtenBy: .responder))
        server.deliver("<iq xmlns='jabber:client' type='set' id='\(acceptID)' from='\(alice)' to='me@example.org/r'>\(accept.element.xmlString())</iq>")
        return (try await publishing.value, sid)
    }
}

/// A scripted call did not reach the state a test needs.
struct ScriptedCallFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
