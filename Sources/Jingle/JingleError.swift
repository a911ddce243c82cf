import CallScopeCore

/// Why a Jingle element or an SDP could not be read or mapped: a code, the offending value in
/// the message. Hostile input always ends here, never in a crash.
public struct JingleError: CodedError {
    /// The kind of failure.
    public let code: ErrorCode<JingleError>
    /// Always `nil`: Jingle errors carry names, not numbers.
    public let routerCode: Int? = nil
    /// What happened, with the offending value.
    public let message: String

    /// Creates an error.
    package init(_ code: ErrorCode<JingleError>, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == JingleError {
    /// A Jingle element broke its XEP: a missing or malformed attribute, a bad number, an
    /// unknown action. Answer such a request with `bad-request`.
    public static let malformedJingle = ErrorCode(rawValue: "malformed-jingle")
    /// An SDP line could not be read (a bad number, a missing field, an `m=` line without the
    /// attributes WebRTC requires).
    public static let malformedSDP = ErrorCode(rawValue: "malformed-sdp")
    /// The input is over one of the ``JingleLimits`` (contents, candidates, payload types, bytes).
    public static let limitExceeded = ErrorCode(rawValue: "limit-exceeded")
    /// Well-formed, but nothing this module can map (an application or transport other than RTP,
    /// the data channel and ICE-UDP). Answer a session-initiate with `unsupported-applications`
    /// or `unsupported-transports`.
    public static let unsupported = ErrorCode(rawValue: "unsupported")
}
