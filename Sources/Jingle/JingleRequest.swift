/// One `<jingle/>` element (XEP-0166): what an IQ of a Jingle session carries.
///
/// ```swift
/// let offer = try JingleSession(sdp: chromiumOffer, writtenBy: .initiator)
/// let request = JingleRequest(action: .sessionInitiate, sessionID: "a73sjjvkla37jfea",
///                             initiator: "romeo@montague.lit/orchard", session: offer)
/// ```
public struct JingleRequest: Hashable, Sendable {
    /// What this request does.
    public var action: JingleAction
    /// The session id (`sid`), chosen by the initiator.
    public var sessionID: String
    /// The initiator's full JID, when given (required on session-initiate).
    public var initiator: String?
    /// The responder's full JID, when given (session-accept).
    public var responder: String?
    /// The contents and groups: what maps to and from SDP (empty for session-terminate).
    public var session: JingleSession
    /// Why (session-terminate, content-reject, ...).
    public var reason: JingleReason?

    /// Creates a request.
    public init(action: JingleAction, sessionID: String, initiator: String? = nil, responder: String? = nil,
                session: JingleSession = JingleSession(), reason: JingleReason? = nil) {
        self.action = action
        self.sessionID = sessionID
        self.initiator = initiator
        self.responder = responder
        self.session = session
        self.reason = reason
    }
}

/// The action of a ``JingleRequest`` (XEP-0166 §7.2), kept as its wire name so that an action
/// this module has no case for still reads.
public struct JingleAction: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire name (`session-initiate`).
    public let rawValue: String
    /// Creates an action from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The wire name.
    public var description: String { rawValue }

    /// Starts a session: the offer.
    public static let sessionInitiate = JingleAction(rawValue: "session-initiate")
    /// Accepts it: the answer.
    public static let sessionAccept = JingleAction(rawValue: "session-accept")
    /// Ends it, with a reason.
    public static let sessionTerminate = JingleAction(rawValue: "session-terminate")
    /// Informational (ringing, hold, ...), no contents.
    public static let sessionInfo = JingleAction(rawValue: "session-info")
    /// Trickled candidates (XEP-0176 §5.2), or new ICE credentials.
    public static let transportInfo = JingleAction(rawValue: "transport-info")
    /// Adds contents to a running session.
    public static let contentAdd = JingleAction(rawValue: "content-add")
    /// Accepts added contents.
    public static let contentAccept = JingleAction(rawValue: "content-accept")
    /// Rejects added contents.
    public static let contentReject = JingleAction(rawValue: "content-reject")
    /// Removes contents.
    public static let contentRemove = JingleAction(rawValue: "content-remove")
    /// Changes a content's `senders`.
    public static let contentModify = JingleAction(rawValue: "content-modify")

    /// Every action XEP-0166 defines (a request with another is `malformedJingle`).
    public static let defined: Set<String> = [
        "content-accept", "content-add", "content-modify", "content-reject", "content-remove", "description-info",
        "security-info", "session-accept", "session-info", "session-initiate", "session-terminate", "transport-accept",
        "transport-info", "transport-reject", "transport-replace",
    ]
}

/// Why a session ends or a content is refused (XEP-0166 §7.4): a condition and an optional
/// human-readable text.
public struct JingleReason: Hashable, Sendable {
    /// The condition.
    public var condition: Condition
    /// Human-readable text, when given.
    public var text: String?

    /// Creates a reason.
    public init(_ condition: Condition, text: String? = nil) {
        self.condition = condition
        self.text = text
    }

    /// A reason condition, kept as its element name.
    public struct Condition: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The element name (`success`, `busy`).
        public let rawValue: String
        /// Creates a condition from its element name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The element name.
        public var description: String { rawValue }

        /// The party is busy.
        public static let busy = Condition(rawValue: "busy")
        /// The party cancelled before the session was accepted.
        public static let cancel = Condition(rawValue: "cancel")
        /// No connectivity could be established.
        public static let connectivityError = Condition(rawValue: "connectivity-error")
        /// The party declined.
        public static let decline = Condition(rawValue: "decline")
        /// The application failed.
        public static let failedApplication = Condition(rawValue: "failed-application")
        /// The transport failed.
        public static let failedTransport = Condition(rawValue: "failed-transport")
        /// Something else went wrong.
        public static let generalError = Condition(rawValue: "general-error")
        /// The party is gone.
        public static let gone = Condition(rawValue: "gone")
        /// The offer could not be met (no common codec).
        public static let incompatibleParameters = Condition(rawValue: "incompatible-parameters")
        /// Media failed.
        public static let mediaError = Condition(rawValue: "media-error")
        /// DTLS or another security step failed.
        public static let securityError = Condition(rawValue: "security-error")
        /// A normal end.
        public static let success = Condition(rawValue: "success")
        /// A timeout.
        public static let timeout = Condition(rawValue: "timeout")
        /// No application in common.
        public static let unsupportedApplications = Condition(rawValue: "unsupported-applications")
        /// No transport in common.
        public static let unsupportedTransports = Condition(rawValue: "unsupported-transports")

        /// Every condition XEP-0166 defines.
        public static let defined: Set<String> = [
            "alternative-session", "busy", "cancel", "connectivity-error", "decline", "expired", "failed-application",
            "failed-transport", "general-error", "gone", "incompatible-parameters", "media-error", "security-error",
            "success", "timeout", "unsupported-applications", "unsupported-transports",
        ]
    }
}
