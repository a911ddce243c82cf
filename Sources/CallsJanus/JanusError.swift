/// Janus refused a request, or could not be reached.
public struct JanusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The HTTP request failed (connection refused, timeout, ...).
        public static let transport = Code(rawValue: "transport")
        /// Janus answered something that is not the JSON it documents.
        public static let malformedReply = Code(rawValue: "malformedReply")
        /// Janus core answered `{"janus":"error"}` (see ``JanusError/routerCode``).
        public static let core = Code(rawValue: "core")
        /// The plugin answered with `error_code` (e.g. 426 no such room, 428 no such feed).
        public static let plugin = Code(rawValue: "plugin")
        /// The Janus session is gone (HTTP 404 or error 458): only a new session works.
        public static let sessionLost = Code(rawValue: "sessionLost")
        /// No answer within the time allowed.
        public static let timeout = Code(rawValue: "timeout")
    }

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

    /// `code(routerCode): message`.
    public var description: String {
        "\(code.rawValue)\(routerCode.map { "(\($0))" } ?? ""): \(message)"
    }
}
