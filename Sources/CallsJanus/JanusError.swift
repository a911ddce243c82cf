import Calls
import CallScopeCore

/// Janus refused a request, or could not be reached.
public struct JanusError: CodedError {
    /// What kind of failure (a growing set).
    public typealias Code = ErrorCode<JanusError>

    /// The kind of failure.
    public var code: Code
    /// Janus' own numeric error code, when it sent one.
    public var routerCode: Int?
    /// What happened, with Janus' words or the offending value.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, routerCode: Int? = nil, _ message: String) {
        self.code = code
        self.routerCode = routerCode
        self.message = message
    }
}

extension ErrorCode where Domain == JanusError {
    /// The HTTP request failed (connection refused, timeout, ...).
    public static let transport = ErrorCode(rawValue: "transport")
    /// Janus answered something that is not the JSON it documents.
    public static let malformedReply = ErrorCode(rawValue: "malformedReply")
    /// Janus core answered `{"janus":"error"}` (see ``JanusError/routerCode``).
    public static let core = ErrorCode(rawValue: "core")
    /// The plugin answered with `error_code` (e.g. 426 no such room, 428 no such feed).
    public static let plugin = ErrorCode(rawValue: "plugin")
    /// The Janus session is gone (HTTP 404 or error 458): only a new session works.
    public static let sessionLost = ErrorCode(rawValue: "sessionLost")
    /// No answer within the time allowed.
    public static let timeout = ErrorCode(rawValue: "timeout")
}
