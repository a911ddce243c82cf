import CallScopeCore

/// A session, publisher or subscriber operation failed; the code says which way, the message
/// carries the offending value.
public struct CallError: CodedError {
    /// The kind of failure (a growing set).
    public typealias Code = ErrorCode<CallError>

    /// The kind of failure.
    public var code: Code
    /// The router's error code for ``Code/routerError``.
    public var routerCode: Int?
    /// What happened.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, routerCode: Int? = nil, _ message: String) {
        self.code = code
        self.routerCode = routerCode
        self.message = message
    }

    /// Maps whatever a signaling or engine call threw.
    static func wrapping(_ error: any Error, _ what: String) -> CallError {
        switch error {
        case let error as CallError:
            return error
        case let error as SignalingError:
            if error.sessionLost { return CallError(.notConnected, "\(what): \(error.message)") }
            guard let code = error.routerCode else { return CallError(.signalingUnavailable, "\(what): \(error.message)") }
            return CallError(.routerError, routerCode: code, "\(what): \(error.message)")
        default:
            return CallError(.mediaEngine, "\(what): \(error)")
        }
    }
}

extension ErrorCode where Domain == CallError {
    /// The session is not connected (never connected, disconnected, or signaling lost).
    public static let notConnected = ErrorCode(rawValue: "notConnected")
    /// The stream is not (or no longer) in the session.
    public static let streamGone = ErrorCode(rawValue: "streamGone")
    /// This subscriber is already subscribed.
    public static let alreadySubscribed = ErrorCode(rawValue: "alreadySubscribed")
    /// The stream is our own and subscribing to it is not allowed.
    public static let ownStream = ErrorCode(rawValue: "ownStream")
    /// A publisher is already publishing in this session.
    public static let alreadyPublishing = ErrorCode(rawValue: "alreadyPublishing")
    /// The media router refused (see ``CallError/routerCode``).
    public static let routerError = ErrorCode(rawValue: "routerError")
    /// The router could not be reached, or answered something unreadable.
    public static let signalingUnavailable = ErrorCode(rawValue: "signalingUnavailable")
    /// The media engine failed.
    public static let mediaEngine = ErrorCode(rawValue: "mediaEngine")
}
