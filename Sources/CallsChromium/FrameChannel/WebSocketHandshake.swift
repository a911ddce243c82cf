import Connectivity
import Foundation

/// The server half of the WebSocket opening handshake (RFC 6455 §4.2): reads the client's
/// HTTP/1.1 `GET` with `Upgrade: websocket`, and answers `101` with `Sec-WebSocket-Accept`.
enum WebSocketHandshake {
    /// The GUID RFC 6455 §1.3 appends to the client's key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// Longest request head accepted.
    static let maximumRequestBytes = 8 << 10

    /// A parsed upgrade request.
    struct Request: Equatable {
        var path: String
        var key: String
    }

    /// Parses the request head (up to and including the blank line).
    static func parse(_ head: [UInt8]) throws(FrameChannelRejection) -> Request {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let requestLine = lines.first else { throw FrameChannelRejection("empty handshake request") }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[2].hasPrefix("HTTP/1.1") else {
            throw FrameChannelRejection("handshake request line is not 'GET PATH HTTP/1.1': \(requestLine.prefix(80))")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else { throw FrameChannelRejection("handshake without 'Upgrade: websocket'") }
        guard let key = fields["sec-websocket-key"], !key.isEmpty else { throw FrameChannelRejection("handshake without Sec-WebSocket-Key") }
        return Request(path: String(parts[1]), key: key)
    }

    /// `Sec-WebSocket-Accept` for a client key: base64(SHA-1(key + GUID)).
    static func acceptValue(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// The `101 Switching Protocols` reply.
    static func response(for request: Request) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(acceptValue(for: request.key))\r\n\r\n".utf8)
    }

    /// A plain refusal.
    static let forbidden = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
}
