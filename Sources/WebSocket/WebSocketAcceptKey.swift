import Connectivity
import Foundation

/// The `Sec-WebSocket-Accept` value of the opening handshake (RFC 6455 §1.3, §4.2.2).
package enum WebSocketAcceptKey {
    /// The GUID RFC 6455 §1.3 appends to the client's key before hashing.
    package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// base64(SHA-1(`key` + GUID)): what a server answers to a client's `Sec-WebSocket-Key`.
    package static func value(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }
}
