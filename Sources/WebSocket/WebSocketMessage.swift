/// One complete WebSocket message or control frame (RFC 6455 §5.5–5.6), as read.
package enum WebSocketMessage: Hashable, Sendable {
    /// A text message (valid UTF-8), all fragments joined.
    case text([UInt8])
    /// A binary message, all fragments joined.
    case binary([UInt8])
    /// A ping, with its application data (answer with a pong carrying the same).
    case ping([UInt8])
    /// A pong.
    case pong([UInt8])
    /// A close frame: its status code (nil when it has none) and reason.
    case close(code: UInt16?, reason: String)
}

/// A WebSocket peer broke RFC 6455, or a limit: the status code to close with and what happened.
package struct WebSocketProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The close status code it calls for (1002 protocol error, 1007 bad data, 1009 too big).
    package let closeCode: UInt16
    /// What happened.
    package let message: String

    package init(_ closeCode: UInt16, _ message: String) {
        self.closeCode = closeCode
        self.message = message
    }

    package var description: String { "WebSocket \(closeCode): \(message)" }
}
