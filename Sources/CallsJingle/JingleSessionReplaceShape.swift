import Jingle
import XMPP

/// The wire shapes of replacing a publication's Jingle session by a new one (a new peer
/// connection: new ICE credentials, DTLS fingerprint and SSRCs, which no `transport-info` or
/// `transport-replace` can carry together with the description):
///
/// - the publisher sends a `session-initiate` of a **fresh sid** with the new offer, holding
///   `<replaces xmlns='urn:callscope:jingle:friend:0' sid='OLD'/>`, so that the subscriber takes
///   it as the same stream, not a new one; once it is acknowledged, the old session is ended by a
///   `session-terminate` with XEP-0166's own reason for it, `<alternative-session><sid>NEW</sid>`
///   (a client that ignores `<replaces/>` then sees one session end and another begin);
/// - the subscriber asks its publisher for one with a `session-info` on the old sid holding
///   `<replace-session xmlns='urn:callscope:jingle:friend:0'/>` (XEP-0166 leaves session-info
///   payloads to the application, as for `<restart-ice/>`).
enum JingleSessionReplaceShape {
    static let namespace = JingleIceRestartShape.requestNamespace
    static let replacesName = "replaces"
    static let requestName = "replace-session"

    /// The `session-initiate` of `sid` carrying `session`, replacing session `old`.
    static func initiate(sid: String, replacing old: String, initiator: String?, session: JingleSession) -> XMPPElement {
        var element = JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: initiator, session: session).element
        element.children.append(XMPPElement(replacesName, namespace: namespace, attributes: ["sid": old]))
        return element
    }

    /// The session a `session-initiate` (a `<jingle/>`) replaces; `nil` for an ordinary one.
    static func replacedSession(of payload: XMPPElement) -> String? {
        guard payload.attributes["action"] == JingleAction.sessionInitiate.rawValue else { return nil }
        return payload.child(replacesName, namespace: namespace).map { $0.attributes["sid"] ?? "" }
    }

    /// The `session-info` asking the initiator of `sid` for a new session in its place.
    static func request(sid: String) -> XMPPElement {
        var element = JingleRequest(action: .sessionInfo, sessionID: sid).element
        element.children.append(XMPPElement(requestName, namespace: namespace))
        return element
    }

    /// Whether `payload` (a `<jingle/>`) is such a request.
    static func isRequest(_ payload: XMPPElement) -> Bool {
        payload.attributes["action"] == JingleAction.sessionInfo.rawValue
            && payload.children.contains { $0.name == requestName && $0.namespace == namespace }
    }

    /// The `session-terminate` of `old`, replaced by `new` (XEP-0166 `alternative-session`).
    static func terminate(sid old: String, replacedBy new: String) -> XMPPElement {
        var element = JingleRequest(action: .sessionTerminate, sessionID: old).element
        let condition = XMPPElement("alternative-session", namespace: JingleNamespace.jingle,
                                    children: [XMPPElement("sid", namespace: JingleNamespace.jingle, text: new)])
        element.children.append(XMPPElement("reason", namespace: JingleNamespace.jingle, children: [condition]))
        return element
    }
}
