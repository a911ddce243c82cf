/// What a session negotiates, the part of Jingle that maps to and from an SDP: the contents (one
/// per m-line, named by its `a=mid`) and their groups (`a=group:BUNDLE`, XEP-0338).
public struct JingleSession: Hashable, Sendable {
    /// The contents, in m-line order.
    public var contents: [JingleContent]
    /// The groups of contents (BUNDLE), XEP-0338.
    public var groups: [JingleGroup]

    /// Creates a session.
    public init(contents: [JingleContent] = [], groups: [JingleGroup] = []) {
        self.contents = contents
        self.groups = groups
    }

    /// The content called `name`, if any.
    public func content(named name: String) -> JingleContent? { contents.first { $0.name == name } }
}

/// A group of contents (XEP-0338), e.g. BUNDLE: the named contents share one transport.
public struct JingleGroup: Hashable, Sendable {
    /// The semantics (`BUNDLE`, `LS`).
    public var semantics: String
    /// The names of the contents in the group.
    public var contentNames: [String]

    /// Creates a group.
    public init(semantics: String, contentNames: [String]) {
        self.semantics = semantics
        self.contentNames = contentNames
    }
}

/// Which party of a session: the initiator (the offerer) or the responder (the answerer).
public enum JingleRole: String, Hashable, Sendable {
    /// The party that sent session-initiate.
    case initiator
    /// The party that answers it.
    case responder

    /// The other party.
    public var other: JingleRole { self == .initiator ? .responder : .initiator }
}

/// Which parties send media on a content (XEP-0166 `senders`).
public enum JingleSenders: String, Hashable, Sendable {
    /// Both (`a=sendrecv`).
    case both
    /// Only the initiator.
    case initiator
    /// Only the responder.
    case responder
    /// Neither (`a=inactive`).
    case none
}

/// One content of a session (XEP-0166 `<content/>`): one m-line.
public struct JingleContent: Hashable, Sendable {
    /// Who created the content.
    public var creator: JingleRole
    /// Its name, unique in the session; the m-line's `a=mid` in the SDP mapping.
    public var name: String
    /// Who sends.
    public var senders: JingleSenders
    /// What is exchanged (nil in transport-info, where only the transport travels).
    public var application: JingleApplication?
    /// How (nil in a content that carries no transport, e.g. content-remove).
    public var transport: JingleICETransport?

    /// Creates a content.
    public init(creator: JingleRole = .initiator, name: String, senders: JingleSenders = .both,
                application: JingleApplication? = nil, transport: JingleICETransport? = nil) {
        self.creator = creator
        self.name = name
        self.senders = senders
        self.application = application
        self.transport = transport
    }
}

/// The application of a content: RTP media (XEP-0167) or the WebRTC data channel (XEP-0343).
public enum JingleApplication: Hashable, Sendable {
    /// Audio or video over RTP.
    case rtp(JingleRTPDescription)
    /// The data channel: SCTP over DTLS; its port and message size are in the transport.
    case dataChannel
    /// An application this module does not know, by the namespace of its `<description/>`
    /// (answer with `unsupported-applications`).
    case other(namespace: String)
}
