import Jingle
import XMPP

/// The wire shapes of an ICE restart over Jingle, as friend connections use them: a
/// `transport-info` whose every content's transport carries `ufrag` and `pwd` and no candidate
/// is an ICE restart (XEP-0176 §"ICE restarts": the new credentials; candidates follow as usual
/// `transport-info`); the responder asks for one with a `session-info` holding
/// `<restart-ice xmlns='urn:callscope:jingle:friend:0'/>` (XEP-0166 lets applications define
/// session-info payloads).
enum JingleIceRestartShape {
    static let requestNamespace = "urn:callscope:jingle:friend:0"
    static let requestName = "restart-ice"

    /// The `session-info` asking the initiator of `sid` for an ICE restart.
    static func request(sid: String) -> XMPPElement {
        var element = JingleRequest(action: .sessionInfo, sessionID: sid).element
        element.children.append(XMPPElement(requestName, namespace: requestNamespace))
        return element
    }

    /// Whether `payload` (a `<jingle/>`) is such a request.
    static func isRequest(_ payload: XMPPElement) -> Bool {
        payload.attributes["action"] == JingleAction.sessionInfo.rawValue
            && payload.children.contains { $0.name == requestName && $0.namespace == requestNamespace }
    }

    /// The credentials of a restart `transport-info`; `nil` when it is not one (no content, or
    /// one without both values, or with candidates).
    static func credentials(of request: JingleRequest) -> [JingleIceRestarts.Credentials]? {
        guard !request.session.contents.isEmpty else { return nil }
        var result: [JingleIceRestarts.Credentials] = []
        for content in request.session.contents {
            guard let transport = content.transport, transport.candidates.isEmpty,
                  let fragment = transport.usernameFragment, let password = transport.password else { return nil }
            result.append(JingleIceRestarts.Credentials(contentName: content.name, usernameFragment: fragment, password: password))
        }
        return result
    }

    /// The credentials of every content of `session` (an SDP's, read by the Jingle module);
    /// `nil` when one lacks them.
    static func credentials(of session: JingleSession) -> [JingleIceRestarts.Credentials]? {
        let result = session.contents.compactMap { content -> JingleIceRestarts.Credentials? in
            guard let fragment = content.transport?.usernameFragment, let password = content.transport?.password else { return nil }
            return JingleIceRestarts.Credentials(contentName: content.name, usernameFragment: fragment, password: password)
        }
        return result.isEmpty || result.count != session.contents.count ? nil : result
    }

    /// The `transport-info` carrying `credentials`.
    static func transportInfo(sid: String, _ credentials: [JingleIceRestarts.Credentials]) -> XMPPElement {
        let contents = credentials.map {
            JingleContent(creator: .initiator, name: $0.contentName, application: nil,
                          transport: JingleICETransport(usernameFragment: $0.usernameFragment, password: $0.password))
        }
        return JingleRequest(action: .transportInfo, sessionID: sid, session: JingleSession(contents: contents)).element
    }

    /// `base` with each named content's credentials replaced and its candidates removed (the
    /// new ones trickle); `nil` when a name is not a content of `base` or a value is not ICE's
    /// (RFC 8839: `ufrag` 4–256 and `pwd` 22–256 ice-chars).
    static func session(_ base: JingleSession, replacing credentials: [JingleIceRestarts.Credentials]) -> JingleSession? {
        var session = base
        for new in credentials {
            guard isICE(new.usernameFragment, 4...256), isICE(new.password, 22...256),
                  let index = session.contents.firstIndex(where: { $0.name == new.contentName }) else { return nil }
            var transport = session.contents[index].transport ?? JingleICETransport()
            transport.usernameFragment = new.usernameFragment
            transport.password = new.password
            transport.candidates = []
            session.contents[index].transport = transport
        }
        return session
    }

    private static func isICE(_ value: String, _ lengths: ClosedRange<Int>) -> Bool {
        lengths.contains(value.utf8.count) && value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2B || byte == 0x2F
        }
    }
}
