/// A session, publisher or subscriber operation failed; the code says which way, the message
/// carries the offending value.
public struct CallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure (a growing set).
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The session is not connected (never connected, disconnected, or signaling lost).
        public static let notConnected = Code(rawValue: "notConnected")
        /// The stream is not (or no longer) in the session.
        public static let streamGone = Code(rawValue: "streamGone")
        /// This subscriber is already subscribed.
        public static let alreadySubscribed = Code(rawValue: "alreadySubscribed")
        /// The stream is our own and subscribing to it is not allowed.
        public static let ownStream = Code(rawValue: "ownStream")
        /// A publisher is already publishing in this session.
        public static let alreadyPublishing = Code(rawValue: "alreadyPublishing")
        /// The media router refused (see ``CallError/routerCode``).
        public static let routerError = Code(rawValue: "routerError")
        /// The router could not be reached, or answered something unreadable.
        public static let signalingUnavailable = Code(rawValue: "signalingUnavailable")
        /// The media engine failed.
        public static let mediaEngine = Code(rawValue: "mediaEngine")
    }

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

    /// `code(routerCode): message`.
    public var description: String { "\(code.rawValue)\(routerCode.map { "(\($0))" } ?? ""): \(message)" }

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
