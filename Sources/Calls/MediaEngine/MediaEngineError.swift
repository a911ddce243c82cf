/// A media engine could not do what it was asked.
public struct MediaEngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No peer connection has this id (never made, or closed).
        public static let unknownPeerConnection = Code(rawValue: "unknownPeerConnection")
        /// The WebRTC implementation rejected the operation (e.g. a description in the wrong
        /// signaling state); the message carries its words.
        public static let rejected = Code(rawValue: "rejected")
        /// The engine's process or page is gone, or answered something unreadable.
        public static let engineUnavailable = Code(rawValue: "engineUnavailable")
        /// The engine cannot do this at all (e.g. deliver video frames); the message says what.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The engine has been shut down.
        public static let shutDown = Code(rawValue: "shutDown")
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, with the offending value.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
