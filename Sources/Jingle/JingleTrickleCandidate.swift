/// One trickled ICE candidate (XEP-0176 §5.2 transport-info; an `RTCIceCandidate` in the
/// browser): the content (m-line) it belongs to, the ICE username fragment of its generation,
/// the candidate.
public struct JingleTrickleCandidate: Hashable, Sendable {
    /// The content name, which is the m-line's `sdpMid`.
    public var contentName: String
    /// The ICE username fragment the candidate belongs to (`usernameFragment`), when known.
    public var usernameFragment: String?
    /// The candidate.
    public var candidate: JingleICECandidate

    /// Creates a trickled candidate.
    public init(contentName: String, usernameFragment: String? = nil, candidate: JingleICECandidate) {
        self.contentName = contentName
        self.usernameFragment = usernameFragment
        self.candidate = candidate
    }

    /// Reads the fields of an `RTCIceCandidate` (`candidate`, `sdpMid`, `usernameFragment`); a
    /// `ufrag` inside the candidate text counts when `usernameFragment` is nil.
    public init(sdpCandidate: String, sdpMid: String, usernameFragment: String? = nil) throws(JingleError) {
        let parsed = try JingleICECandidate.parse(sdpCandidate)
        contentName = try sdpToken(sdpMid, "sdpMid")
        self.usernameFragment = try usernameFragment.map { (fragment) throws(JingleError) in try sdpToken(fragment, "usernameFragment") }
            ?? parsed.usernameFragment
        candidate = parsed.candidate
    }

    /// The `candidate` field of an `RTCIceCandidateInit` (with `ufrag`, so that Chromium can tell
    /// generations apart); `sdpMid` is ``contentName``.
    public var sdpCandidate: String { candidate.sdpAttribute(usernameFragment: usernameFragment) }
}

extension JingleRequest {
    /// A transport-info carrying `candidates` (XEP-0176 §5.2): one content per content name, in
    /// first-seen order, each with the candidates' username fragment.
    public static func transportInfo(sessionID: String, initiator: String? = nil, creator: JingleRole = .initiator,
                                     candidates: [JingleTrickleCandidate]) -> JingleRequest {
        var contents: [JingleContent] = []
        for trickled in candidates {
            if let position = contents.firstIndex(where: { $0.name == trickled.contentName }) {
                contents[position].transport?.candidates.append(trickled.candidate)
            } else {
                contents.append(JingleContent(creator: creator, name: trickled.contentName, application: nil,
                                              transport: JingleICETransport(usernameFragment: trickled.usernameFragment,
                                                                            candidates: [trickled.candidate])))
            }
        }
        return JingleRequest(action: .transportInfo, sessionID: sessionID, initiator: initiator, session: JingleSession(contents: contents))
    }

    /// The candidates this request carries (a transport-info's; also a session-initiate's or
    /// session-accept's), each with its content name and username fragment, in order.
    public var trickleCandidates: [JingleTrickleCandidate] {
        session.contents.flatMap { content in
            (content.transport?.candidates ?? []).map {
                JingleTrickleCandidate(contentName: content.name, usernameFragment: content.transport?.usernameFragment, candidate: $0)
            }
        }
    }
}
