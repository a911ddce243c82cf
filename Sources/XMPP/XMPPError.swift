import CallScopeCore

/// Why an XMPP operation failed: a code, the offending value in the message.
public struct XMPPError: CodedError {
    /// The kind of failure.
    public let code: ErrorCode<XMPPError>
    /// Always `nil`: XMPP errors carry names, not numbers (the condition is in the message).
    public let routerCode: Int? = nil
    /// What happened, with the offending value.
    public let message: String

    /// Creates an error.
    package init(_ code: ErrorCode<XMPPError>, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == XMPPError {
    /// A message was not well-formed XML, used a forbidden construct (DTD, entity declaration,
    /// comment, processing instruction) or exceeded a read limit.
    public static let malformedXML = ErrorCode(rawValue: "malformed-xml")
    /// A well-formed element the protocol does not allow here (a missing attribute, a bad value).
    public static let protocolViolation = ErrorCode(rawValue: "protocol-violation")
    /// SASL failed: the server refused the credentials, or its proof did not verify.
    public static let authenticationFailed = ErrorCode(rawValue: "authentication-failed")
    /// The server sent a stream error (the condition is in the message).
    public static let streamError = ErrorCode(rawValue: "stream-error")
    /// The server answered a request with a stanza error (the condition is in the message).
    public static let stanzaError = ErrorCode(rawValue: "stanza-error")
    /// The connection (TCP, WebSocket) failed or closed.
    public static let transport = ErrorCode(rawValue: "transport")
    /// No answer in time.
    public static let timeout = ErrorCode(rawValue: "timeout")
    /// The client is not connected (or was closed) for this operation.
    public static let notConnected = ErrorCode(rawValue: "not-connected")
    /// An argument was not valid (a JID, a URL).
    public static let invalidArgument = ErrorCode(rawValue: "invalid-argument")
}
