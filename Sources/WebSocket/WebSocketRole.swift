/// Which end of a WebSocket connection this is: it decides which frames must be masked
/// (RFC 6455 §5.1: every client frame, no server frame).
package enum WebSocketRole: Sendable {
    /// The end that opened the connection: it masks what it sends and refuses masked frames.
    case client
    /// The end that accepted the connection: it sends unmasked frames and requires masked ones.
    case server

    /// Whether frames this end reads must carry a masking key.
    package var readsMaskedFrames: Bool { self == .server }
}
