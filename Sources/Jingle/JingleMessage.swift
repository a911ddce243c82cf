import XMPP

/// One Jingle Message Initiation message (XEP-0353, `urn:xmpp:jingle-message:0`), the child of
/// a `<message type='chat'/>`: the call is proposed to every device of the callee, one device
/// rings, takes it (proceed) or turns it down (reject), the caller may retract; then the Jingle
/// session starts with the same id.
public struct JingleMessage: Hashable, Sendable {
    /// The kind of message (its element name).
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The caller proposes a session, listing its media.
        case propose
        /// A device of the callee is ringing.
        case ringing
        /// The callee takes the call on this device.
        case proceed
        /// The callee took the call (sent to the callee's own devices, XEP-0353 before 0.4).
        case accept
        /// The callee declines.
        case reject
        /// The caller withdraws the proposal.
        case retract
        /// The session ended (XEP-0353 0.4 and later).
        case finish
    }

    /// What a propose lists (its `<description/>` children).
    public enum ProposedApplication: Hashable, Sendable {
        /// RTP media: `audio` or `video`.
        case rtp(media: String)
        /// The data channel.
        case dataChannel
    }

    /// The kind.
    public var kind: Kind
    /// The id, which the Jingle session takes as its `sid`.
    public var sessionID: String
    /// What a propose proposes (empty for the other kinds).
    public var proposedApplications: [ProposedApplication]
    /// Why (reject, retract, finish; XEP-0353 0.7 requires one there).
    public var reason: JingleReason?

    /// Creates a message.
    public init(_ kind: Kind, sessionID: String, proposedApplications: [ProposedApplication] = [], reason: JingleReason? = nil) {
        self.kind = kind
        self.sessionID = sessionID
        self.proposedApplications = proposedApplications
        self.reason = reason
    }

    /// Reads the XEP-0353 element (not the `<message/>` around it). Descriptions of other
    /// applications in a propose are skipped (nothing to map them to); at most 16 are read.
    package init(element: XMPPElement) throws(JingleError) {
        guard element.namespace == JingleNamespace.jingleMessage, let kind = Kind(rawValue: element.name) else {
            throw JingleError(.malformedJingle, "<\(element.name.prefix(40)) xmlns='\(element.namespace.prefix(80))'> is not a XEP-0353 message")
        }
        self.kind = kind
        sessionID = try element.requiredToken("id")
        var proposed: [ProposedApplication] = []
        if kind == .propose {
            let descriptions = element.children.filter { $0.name == "description" }
            guard descriptions.count <= 16 else { throw JingleError(.limitExceeded, "\(descriptions.count) descriptions in <propose>, over 16") }
            for description in descriptions {
                switch description.namespace {
                case JingleNamespace.rtp: proposed.append(.rtp(media: try description.requiredToken("media")))
                case JingleNamespace.webRTCDataChannel: proposed.append(.dataChannel)
                default: continue
                }
            }
        }
        proposedApplications = proposed
        reason = try element.child("reason", namespace: JingleNamespace.jingle).map { (reason) throws(JingleError) in
            try JingleReason(element: reason)
        }
    }

    /// The XEP-0353 element, for a `<message type='chat'/>` (with a XEP-0334 `<store/>` hint
    /// beside it, as XEP-0353 asks).
    package var element: XMPPElement {
        var element = XMPPElement(kind.rawValue, namespace: JingleNamespace.jingleMessage, attributes: ["id": sessionID])
        for application in proposedApplications {
            switch application {
            case .rtp(let media): element.children.append(XMPPElement("description", namespace: JingleNamespace.rtp, attributes: ["media": media]))
            case .dataChannel: element.children.append(XMPPElement("description", namespace: JingleNamespace.webRTCDataChannel))
            }
        }
        if let reason { element.children.append(reason.element) }
        return element
    }
}
