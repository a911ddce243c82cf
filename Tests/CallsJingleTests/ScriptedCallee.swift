import CallScopeCore
import Calls
import CallsJingle
import Foundation
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

/// A scripted call did not reach the state a test needs.
struct ScriptedCallFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
