import Calls
import FriendConnections
import Jingle
import XMPP

/// Friend signalling as Jingle (the `Jingle` module's mapping): the offer is a
/// `session-initiate` and the answer a `session-accept` (XEP-0166), each content with its ICE-UDP
/// transport (XEP-0176), DTLS fingerprint (XEP-0320) and, for the friend connection, the data
/// channel (XEP-0343); each trickled candidate a `transport-info`; the end a `session-terminate`.
struct JingleFriendSignalCodec: FriendSignalCodec {
    var namespace: String { JingleNamespace.jingle }

    func element(for signal: FriendSignal, from sender: JID?, to recipient: JID) throws -> XMPPElement {
        switch signal {
        case .offer(let sid, let offer):
            return JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: sender?.description,
                                 session: try JingleSession(sdp: offer.sdp, writtenBy: .initiator)).element
        case .answer(let sid, let answer):
            return JingleRequest(action: .sessionAccept, sessionID: sid, responder: sender?.description,
                                 session: try JingleSession(sdp: answer.sdp, writtenBy: .responder)).element
        case .candidates(let sid, let candidates):
            let trickled = try candidates.map { (candidate) throws(JingleError) in
                try JingleTrickleCandidate(sdpCandidate: candidate.candidate, sdpMid: candidate.sdpMid ?? "0")
            }
            return JingleRequest.transportInfo(sessionID: sid, candidates: trickled).element
        case .iceRestart(let sid, let credentials):
            let contents = credentials.map {
                JingleContent(creator: .initiator, name: $0.contentName, application: nil,
                              transport: JingleICETransport(usernameFragment: $0.usernameFragment, password: $0.password))
            }
            return JingleRequest(action: .transportInfo, sessionID: sid, session: JingleSession(contents: contents)).element
        case .iceRestartRequest(let sid):
            var element = JingleRequest(action: .sessionInfo, sessionID: sid).element
            element.children.append(XMPPElement(Self.restartRequestName, namespace: Self.friendNamespace))
            return element
        case .terminate(let sid, let reason):
            return JingleRequest(action: .sessionTerminate, sessionID: sid, reason: JingleReason(JingleReason.Condition(rawValue: reason))).element
        }
    }

    func signal(from payload: XMPPElement) -> Result<FriendSignal, FriendSignalRefusal> {
        do {
            let request = try JingleRequest(element: payload)
            switch request.action {
            case .sessionInitiate:
                return .success(.offer(sid: request.sessionID, SessionDescription(kind: .offer, sdp: try request.session.sdp(writtenBy: .initiator))))
            case .sessionAccept:
                return .success(.answer(sid: request.sessionID, SessionDescription(kind: .answer, sdp: try request.session.sdp(writtenBy: .responder))))
            case .transportInfo where Self.isIceRestart(request):
                let credentials = request.session.contents.compactMap { content in
                    content.transport.flatMap { transport in
                        transport.usernameFragment.flatMap { fragment in
                            transport.password.map { IceRestartDescription.Credentials(contentName: content.name, usernameFragment: fragment, password: $0) }
                        }
                    }
                }
                return .success(.iceRestart(sid: request.sessionID, credentials))
            case .transportInfo:
                let candidates = request.trickleCandidates.map { IceCandidate(candidate: $0.sdpCandidate, sdpMid: $0.contentName, sdpMLineIndex: nil) }
                return .success(.candidates(sid: request.sessionID, candidates))
            case .sessionInfo where payload.children.contains(where: { $0.name == Self.restartRequestName && $0.namespace == Self.friendNamespace }):
                return .success(.iceRestartRequest(sid: request.sessionID))
            case .sessionTerminate:
                return .success(.terminate(sid: request.sessionID, reason: request.reason?.condition.rawValue ?? "success"))
            default:
                // Friend connections use none of the other actions (XEP-0166 §7.2: not implemented).
                return .failure(FriendSignalRefusal(condition: "feature-not-implemented"))
            }
        } catch {
            return .failure(FriendSignalRefusal(condition: "bad-request"))
        }
    }

    /// Our own session-info payloads (XEP-0166 lets an application define them).
    static let friendNamespace = "urn:callscope:jingle:friend:0"
    static let restartRequestName = "restart-ice"

    /// A transport-info whose every transport has new credentials (a password: trickled
    /// candidates carry at most the ufrag) and no candidate is an ICE restart.
    static func isIceRestart(_ request: JingleRequest) -> Bool {
        !request.session.contents.isEmpty && request.session.contents.allSatisfy { content in
            guard let transport = content.transport else { return false }
            return transport.password != nil && transport.usernameFragment != nil && transport.candidates.isEmpty
        }
    }
}
