import Calls
import FriendConnections
@testable import Friends
import Jingle
import Testing
import XMPP

/// An ICE restart as Jingle: a transport-info whose transport carries a new ufrag and pwd and no
/// candidate (XEP-0176); a trickled candidate stays a candidate.
@Suite struct IceRestartSignalTests {
    let codec = JingleFriendSignalCodec()

    private func reread(_ signal: FriendSignal) throws -> (XMPPElement, FriendSignal) {
        let element = try codec.element(for: signal, from: JID("alice@example.org/phone")!, to: JID("bob@example.org/laptop")!)
        let back = try XMPPElementReader.read(Array(element.xmlString().utf8), limits: XMPPReadLimits())
        return (element, try codec.signal(from: back).get())
    }

    @Test func newCredentialsTravelAsATransportInfo() throws {
        let credentials = [IceRestartDescription.Credentials(contentName: "0", usernameFragment: "Nw3x", password: "newPasswordOf24Chars/+ab")]
        let (element, back) = try reread(.iceRestart(sid: "s1", credentials))
        #expect(element.attributes["action"] == "transport-info")
        let transport = try #require(element.children.first?.children.first { $0.name == "transport" })
        #expect(transport.namespace == "urn:xmpp:jingle:transports:ice-udp:1")
        #expect(transport.attributes["ufrag"] == "Nw3x")
        #expect(transport.attributes["pwd"] == "newPasswordOf24Chars/+ab")
        #expect(transport.children.isEmpty)
        #expect(back == .iceRestart(sid: "s1", credentials))
    }

    @Test func aTrickledCandidateIsNoRestart() throws {
        let candidate = "candidate:91395308 1 udp 2113937151 192.0.2.2 35155 typ host generation 0 ufrag qdij network-cost 999"
        let (_, back) = try reread(.candidates(sid: "s1", [IceCandidate(candidate: candidate, sdpMid: "0", sdpMLineIndex: nil)]))
        guard case .candidates(let sid, let candidates) = back else {
            Issue.record("not candidates: \(back)")
            return
        }
        #expect(sid == "s1" && candidates.count == 1)
    }

    @Test func theResponderAsksForARestartWithASessionInfo() throws {
        let (element, back) = try reread(.iceRestartRequest(sid: "s1"))
        #expect(element.attributes["action"] == "session-info")
        #expect(element.children.map(\.name) == ["restart-ice"])
        #expect(element.children.first?.namespace == "urn:callscope:jingle:friend:0")
        #expect(back == .iceRestartRequest(sid: "s1"))
    }

    @Test func aSessionInfoWithAnotherPayloadIsRefused() throws {
        var element = JingleRequest(action: .sessionInfo, sessionID: "s1").element
        element.children.append(XMPPElement("ringing", namespace: "urn:xmpp:jingle:apps:rtp:info:1"))
        guard case .failure(let refusal) = codec.signal(from: element) else {
            Issue.record("a ringing session-info read as a friend signal")
            return
        }
        #expect(refusal.condition == "feature-not-implemented")
    }
}
