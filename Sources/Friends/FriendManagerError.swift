import CallScopeCore

/// Why a ``FriendManager`` could not start.
public struct FriendManagerError: CodedError {
    /// The kind of failure.
    public let code: ErrorCode<FriendManagerError>
    /// Always `nil`.
    public let routerCode: Int? = nil
    /// What happened, with the offending value.
    public let message: String

    init(_ code: ErrorCode<FriendManagerError>, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == FriendManagerError {
    /// The XMPP client is not connected: connect it first.
    public static let notConnected = ErrorCode(rawValue: "not-connected")
    /// The XMPP server announced no STUN server (XEP-0215), so discoverability cannot be probed.
    public static let noSTUNServer = ErrorCode(rawValue: "no-stun-server")
    /// Asking the XMPP server for its STUN/TURN servers failed.
    public static let externalServicesFailed = ErrorCode(rawValue: "external-services-failed")
}
