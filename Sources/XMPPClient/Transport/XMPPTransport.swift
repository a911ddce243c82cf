import Foundation
import XMPP

/// What a transport reports, in order.
package enum XMPPTransportEvent: Sendable {
    /// One complete message (RFC 7395: one XML element), UTF-8.
    case message([UInt8])
    /// The connection ended: `nil` after our own clean close, else why. The last event.
    case closed(XMPPError?)
}

/// One XMPP-over-WebSocket connection (RFC 7395). Two implementations: ``POSIXWebSocketTransport``
/// (our RFC 6455 client over POSIX sockets, ws:// only; used on Linux, where Foundation's
/// WebSocket task fails at run time) and `URLSessionWebSocketTransport` on Apple platforms.
package protocol XMPPTransport: Sendable {
    /// Connects (TCP and the WebSocket handshake with the `xmpp` subprotocol) and returns the
    /// incoming messages; the stream ends after `.closed`.
    func connect(timeout: Duration) async throws(XMPPError) -> AsyncStream<XMPPTransportEvent>
    /// Sends one message (one element) as a text frame.
    func send(_ text: String) async throws(XMPPError)
    /// Closes cleanly (a close frame, then the socket).
    func close() async
    /// Drops the connection with no goodbye, as a network loss would.
    func abort()
}

/// Makes the transport for a WebSocket URL: the platform's own by default, tests inject theirs.
package typealias XMPPTransportFactory = @Sendable (URL) throws(XMPPError) -> any XMPPTransport

/// The default transport for `url`: on Apple platforms Foundation's WebSocket task (ws:// and
/// wss://), elsewhere ours (ws:// only; wss:// needs TLS: docs/peer-to-peer.md).
package func platformTransport(for url: URL) throws(XMPPError) -> any XMPPTransport {
    #if canImport(Darwin)
    return URLSessionWebSocketTransport(url: url)
    #else
    return try POSIXWebSocketTransport(url: url)
    #endif
}
