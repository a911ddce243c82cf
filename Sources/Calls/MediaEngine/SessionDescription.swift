/// An SDP offer or answer, as exchanged with the media router.
public struct SessionDescription: Hashable, Sendable {
    /// Whether the description is an offer or an answer.
    public enum Kind: String, Sendable, Hashable {
        /// An SDP offer.
        case offer
        /// An SDP answer.
        case answer
    }

    /// Offer or answer.
    public var kind: Kind
    /// The SDP text.
    public var sdp: String

    /// Creates a description.
    public init(kind: Kind, sdp: String) {
        self.kind = kind
        self.sdp = sdp
    }
}

/// One trickled ICE candidate (`a=candidate:` line without the `a=`), with the media section it
/// belongs to.
public struct IceCandidate: Hashable, Sendable {
    /// The candidate line, e.g. `candidate:1 1 udp 2122260223 192.0.2.2 50000 typ host`.
    public var candidate: String
    /// The media section's mid, when known.
    public var sdpMid: String?
    /// The media section's index, when known.
    public var sdpMLineIndex: Int?

    /// Creates a candidate.
    public init(candidate: String, sdpMid: String?, sdpMLineIndex: Int?) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }
}
