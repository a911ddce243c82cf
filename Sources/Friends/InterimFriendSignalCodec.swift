import Calls
import XMPP

// INTERIM, until the Jingle module lands: SDP as text in a private element. Not to be committed.
struct InterimFriendSignalCodec: FriendSignalCodec {
    let namespace = "urn:callscope:interim-friend:0"

    func element(for signal: FriendSignal, from sender: JID?, to recipient: JID) throws -> XMPPElement {
        switch signal {
        case .offer(let sid, let d): XMPPElement("offer", namespace: namespace, attributes: ["sid": sid], text: d.sdp)
        case .answer(let sid, let d): XMPPElement("answer", namespace: namespace, attributes: ["sid": sid], text: d.sdp)
        case .candidate(let sid, let c): XMPPElement("candidate", namespace: namespace, attributes: ["sid": sid, "mid": c.sdpMid ?? "0", "index": "\(c.sdpMLineIndex ?? 0)"], text: c.candidate)
        case .terminate(let sid, let reason): XMPPElement("terminate", namespace: namespace, attributes: ["sid": sid, "reason": reason])
        }
    }

    func signal(from payload: XMPPElement) -> Result<FriendSignal, FriendSignalRefusal> {
        guard let sid = payload.attributes["sid"] else { return .failure(FriendSignalRefusal(condition: "bad-request")) }
        switch payload.name {
        case "offer": return .success(.offer(sid: sid, SessionDescription(kind: .offer, sdp: payload.text)))
        case "answer": return .success(.answer(sid: sid, SessionDescription(kind: .answer, sdp: payload.text)))
        case "candidate": return .success(.candidate(sid: sid, IceCandidate(candidate: payload.text, sdpMid: payload.attributes["mid"], sdpMLineIndex: Int(payload.attributes["index"] ?? "0"))))
        case "terminate": return .success(.terminate(sid: sid, reason: payload.attributes["reason"] ?? ""))
        default: return .failure(FriendSignalRefusal(condition: "bad-request"))
        }
    }
}
