import CallScopeCore
import Calls
import CallsJingle
import Foundation
import Jingle
import Testing
import XMPP
import XMPPClient
import XMPPTesting

/// `JingleMeshCallSignaling` on a callee's side (we are Bob) against a scripted XMPP server: Alice
/// proposes a call of three (XEP-0353 with the group extension: Alice, Bob, Carol), we proceed
/// to her and propose the same call to Carol; Carol proceeds and joins; we publish to each in a
/// session of its own; Carol stops subscribing, publishes, and leaves. Expected values come
/// from XEP-0353/XEP-0166 and the design in docs/peer-to-peer.md ("Relayed calls of several
/// friends"), the SDP from the Chromium fixtures (ICE ufrag `YRRA` in the offer, `p/dC` in the answer).
@Suite struct JingleMeshCallSignalingScriptedTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JingleTests/Fixtures")
    static let aliceDevice = "alice@example.org/phone", carolDevice = "carol@example.org/tablet"

    /// PLAIN login as bob, an empty roster; every IQ set to a device (a full JID) is acknowledged by it.
    static func server() -> ScriptedXMPPServer {
        ScriptedXMPPServer(boundJID: "bob@example.org/r") { element, server in
            guard element.name == "iq", element.attributes["type"] == "set", let to = element.attributes["to"], to.contains("/") else { return }
            server.deliver("<iq xmlns='jabber:client' type='result' id='\(element.attributes["id"] ?? "")' from='\(to)'/>")
        }
    }

    private func fixture(_ name: String) throws -> String {
        try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    private func iq(_ id: String, from: String, _ request: JingleRequest) -> String {
        "<iq xmlns='jabber:client' type='set' id='\(id)' from='\(from)' to='bob@example.org/r'>\(request.element.xmlString())</iq>"
    }

    private func message(from: String, _ body: String) -> String {
        "<message xmlns='jabber:client' type='chat' from='\(from)'>\(body)</message>"
    }

    static let group = "<group xmlns='urn:callscope:jingle-group:0'><member jid='alice@example.org'/><member jid='bob@example.org'/><member jid='carol@example.org'/></group>"

    private func connectedClient(_ server: ScriptedXMPPServer) async throws -> XMPPClient {
        let client = server.client(jid: "bob@example.org")
        try await client.connect()
        return client
    }

    /// The sid of the first session-initiate sent to `device`.
    private func initiatedSid(_ server: ScriptedXMPPServer, to device: String) -> String? {
        guard let sent = server.sent.first(where: { $0.contains("action=\"session-initiate\"") && $0.contains("to=\"\(device)\"") }),
              let range = sent.firstRange(of: #/sid="([^"]+)"/#) else { return nil }
        return String(sent[range].dropFirst(5).dropLast())
    }

    @Test func aCalleeJoinsTheGroupPublishesToEachMemberAndSeesOneLeave() async throws {
        let offer = try fixture("chromium-audio-video-offer.sdp"), answer = try fixture("chromium-audio-video-answer.sdp")
        let server = Self.server()
        let client = try await connectedClient(server)
        let signaling = JingleMeshCallSignaling(client: client, friends: [JID("alice@example.org")!, JID("carol@example.org")!], role: .callee,
                                                answerTimeout: .seconds(5), gatheringWait: .seconds(5))
        let events = RecordedSignalingEvents(signaling.events)

        // Alice's proposal lists the group: we proceed to her device and propose the call to Carol.
        let joining = Task { try await signaling.join(display: "bob") }
        #expect(await eventually { server.sent.contains { $0.contains("<bind") } })
        try await Task.sleep(for: .milliseconds(50))   // the join registered its handlers
        server.deliver(message(from: "eve@example.org/x", "<propose xmlns='urn:xmpp:jingle-message:0' id='evil'>\(Self.group)</propose>"))
        server.deliver(message(from: Self.aliceDevice, "<propose xmlns='urn:xmpp:jingle-message:0' id='call1'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'/>\(Self.group)</propose>"))
        let join = try await joining.value
        #expect(join.participantID == FeedID("bob@example.org/r"))
        #expect(join.attendees.map(\.id) == [FeedID(Self.aliceDevice)])
        #expect(server.sent.contains { $0.contains("<proceed") && $0.contains("id=\"call1\"") && $0.contains("to=\"\(Self.aliceDevice)\"") })
        #expect(await eventually { server.sent.contains { $0.contains("<propose") && $0.contains("id=\"call1\"") && $0.contains("to=\"carol@example.org\"") } })
        let toCarol = try #require(server.sent.first { $0.contains("<propose") && $0.contains("to=\"carol@example.org\"") })
        #expect(["alice@example.org", "bob@example.org", "carol@example.org"].allSatisfy { toCarol.contains("jid=\"\($0)\"") }, "the same group: \(toCarol)")
        #expect(!server.sent.contains { $0.contains("evil") || $0.contains("to=\"eve@") }, "nothing goes to a stranger")

        // Carol proposes too (both proposed at once): we proceed, and she joins once.
        server.deliver(message(from: Self.carolDevice, "<propose xmlns='urn:xmpp:jingle-message:0' id='call1'>\(Self.group)</propose>"))
        server.deliver(message(from: Self.carolDevice, "<proceed xmlns='urn:xmpp:jingle-message:0' id='call1'/>"))
        #expect(await eventually { server.sent.contains { $0.contains("<proceed") && $0.contains("to=\"\(Self.carolDevice)\"") } })
        #expect(await eventually { events.withLock { $0 } == [.participantJoined(FeedID(Self.carolDevice), display: "carol@example.org")] })
        let proposalsBefore = server.sent.filter { $0.contains("<propose") }.count
        try await Task.sleep(for: .milliseconds(1200))
        #expect(server.sent.filter { $0.contains("<propose") }.count == proposalsBefore, "no proposal once her device is known")

        // A group that does not read is malformed: counted, dropped.
        server.deliver(message(from: Self.aliceDevice, "<propose xmlns='urn:xmpp:jingle-message:0' id='call1'><group xmlns='urn:callscope:jingle-group:0'><member/></group></propose>"))
        #expect(await eventually { await signaling.malformedInputs == 1 })

        // One publication session per member: distinct sids, the member's device as its connection.
        let toAlice = try await signaling.openPublication(to: FeedID(Self.aliceDevice))
        let toCarolLink = try await signaling.openPublication(to: FeedID(Self.carolDevice))
        #expect(toAlice.subscriber.connectionId == Self.aliceDevice && toCarolLink.subscriber.connectionId == Self.carolDevice)
        #expect(toAlice.subscriber.subscriberId != toCarolLink.subscriber.subscriberId && toAlice.handle != toCarolLink.handle)
        #expect(toAlice.subscriber.subscriberId.hasPrefix("call1-"))
        await #expect(throws: SignalingError.self) { try await signaling.openPublication(to: FeedID("dave@example.org/x")) }
        let offered = SessionDescription(kind: .offer, sdp: offer)
        let aliceAnswer = Task { try await signaling.offerPublication(offered, on: toAlice.handle) }
        let carolAnswer = Task { try await signaling.offerPublication(offered, on: toCarolLink.handle) }
        #expect(await eventually { initiatedSid(server, to: Self.aliceDevice) != nil && initiatedSid(server, to: Self.carolDevice) != nil })
        #expect(initiatedSid(server, to: Self.aliceDevice) == toAlice.subscriber.subscriberId)
        #expect(initiatedSid(server, to: Self.carolDevice) == toCarolLink.subscriber.subscriberId)
        server.deliver(iq("j1", from: Self.aliceDevice, JingleRequest(action: .sessionAccept, sessionID: toAlice.subscriber.subscriberId, responder: Self.aliceDevice,
                                                                        session: try JingleSession(sdp: answer, writtenBy: .responder))))
        let fromAlice = try await aliceAnswer.value
        #expect(fromAlice.kind == .answer && fromAlice.sdp.contains("a=ice-ufrag:p/dC"))

        // Alice falls back to audio: her content-modify pauses our video content (mid 1) on her
        // session only; then she resumes it.
        #expect(await signaling.subscriberWantsVideo(on: toAlice.handle))
        let pause = JingleRequest(action: .contentModify, sessionID: toAlice.subscriber.subscriberId,
                                  session: JingleSession(contents: [JingleContent(creator: .initiator, name: "1", senders: .none)]))
        server.deliver(iq("m1", from: Self.aliceDevice, pause))
        #expect(await eventually { await !signaling.subscriberWantsVideo(on: toAlice.handle) })
        #expect(await signaling.subscriberWantsVideo(on: toCarolLink.handle), "Carol's session is untouched")
        var resume = pause
        resume.session.contents[0].senders = .initiator
        server.deliver(iq("m2", from: Self.aliceDevice, resume))
        #expect(await eventually { await signaling.subscriberWantsVideo(on: toAlice.handle) })

        // Carol ends her session with us (she stops subscribing): a hangup of that handle only.
        server.deliver(iq("j2", from: Self.carolDevice, JingleRequest(action: .sessionTerminate, sessionID: toCarolLink.subscriber.subscriberId, reason: JingleReason(.success))))
        await #expect(throws: SignalingError.self) { try await carolAnswer.value }
        #expect(await eventually { events.withLock { $0.last } == .hangup(toCarolLink.handle, reason: "\(Self.carolDevice) ended the session") })

        // Her publication, then her leaving: feedUnpublished, then participantLeft.
        server.deliver(iq("j3", from: Self.carolDevice, JingleRequest(action: .sessionInitiate, sessionID: "call1-carol", initiator: Self.carolDevice,
                                                                        session: try JingleSession(sdp: offer, writtenBy: .initiator))))
        let carolFeed = RouterFeed(id: FeedID(Self.carolDevice), display: "carol@example.org", hasAudio: true, hasVideo: true)
        #expect(await eventually { events.withLock { $0.last } == .feedsPublished([carolFeed]) })
        let subscription = try await signaling.subscribe(to: FeedID(Self.carolDevice))
        #expect(subscription.offer.sdp.contains("a=ice-ufrag:YRRA"))

        // Our layer policy falls back to audio on her stream: a content-modify of her session
        // with senders='none' on the video content (mid 1), once; resuming sends senders='initiator'.
        try await signaling.configure(subscription.handle, streams: [RouterStreamConfiguration(mid: "1", send: false)])
        try await signaling.configure(subscription.handle, streams: [RouterStreamConfiguration(mid: "1", send: false)])
        let modifies = { server.sent.filter { $0.contains("action=\"content-modify\"") && $0.contains("sid=\"call1-carol\"") && $0.contains("to=\"\(Self.carolDevice)\"") } }
        #expect(modifies().count == 1 && modifies()[0].contains("name=\"1\"") && modifies()[0].contains("senders=\"none\""), "\(modifies())")
        _ = try await signaling.sendConfigure(subscription.handle, streams: [RouterStreamConfiguration(mid: "1", send: true)])
        #expect(modifies().count == 2 && modifies()[1].contains("senders=\"initiator\""), "\(modifies())")
        server.deliver(message(from: Self.carolDevice, "<finish xmlns='urn:xmpp:jingle-message:0' id='call1'><reason xmlns='urn:xmpp:jingle:1'><success/></reason></finish>"))
        #expect(await eventually { events.withLock { $0.suffix(2) } == [.feedUnpublished(FeedID(Self.carolDevice)), .participantLeft(FeedID(Self.carolDevice))] })
        #expect(try await signaling.isPublishing(FeedID(Self.carolDevice)) == false)

        // We leave: our session with Alice terminated, finish to her device only.
        await signaling.leave()
        #expect(server.sent.contains { $0.contains("session-terminate") && $0.contains("sid=\"\(toAlice.subscriber.subscriberId)\"") })
        #expect(server.sent.contains { $0.contains("<finish") && $0.contains("to=\"\(Self.aliceDevice)\"") })
        #expect(!server.sent.contains { $0.contains("<finish") && $0.contains("to=\"\(Self.carolDevice)\"") })
        await client.disconnect()
    }

    /// The caller proposes to every friend with the whole group; the first device to proceed
    /// ends the join, the next arrives as participantJoined.
    @Test func aCallerProposesTheGroupToEachFriend() async throws {
        let server = Self.server()
        let client = try await connectedClient(server)
        let signaling = JingleMeshCallSignaling(client: client, friends: [JID("alice@example.org")!, JID("carol@example.org")!], role: .caller,
                                                callID: "call9", answerTimeout: .seconds(5))
        let events = RecordedSignalingEvents(signaling.events)
        let joining = Task { try await signaling.join(display: "bob") }
        #expect(await eventually { ["alice", "carol"].allSatisfy { name in server.sent.contains { $0.contains("<propose") && $0.contains("to=\"\(name)@example.org\"") } } })
        let proposal = try #require(server.sent.first { $0.contains("<propose") })
        #expect(proposal.contains("id=\"call9\"") && ["alice", "bob", "carol"].allSatisfy { proposal.contains("jid=\"\($0)@example.org\"") })
        server.deliver(message(from: Self.carolDevice, "<proceed xmlns='urn:xmpp:jingle-message:0' id='call9'/>"))
        let join = try await joining.value
        #expect(join.attendees.map(\.id) == [FeedID(Self.carolDevice)])
        server.deliver(message(from: Self.aliceDevice, "<proceed xmlns='urn:xmpp:jingle-message:0' id='call9'/>"))
        #expect(await eventually { events.withLock { $0 } == [.participantJoined(FeedID(Self.aliceDevice), display: "alice@example.org")] })
        await signaling.leave()
        #expect(["alice@example.org/phone", Self.carolDevice].allSatisfy { device in server.sent.contains { $0.contains("<finish") && $0.contains("to=\"\(device)\"") } })
        await client.disconnect()
    }
}
