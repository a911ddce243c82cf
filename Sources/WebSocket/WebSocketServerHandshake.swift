import Foundation

/// The server half of the opening handshake (RFC 6455 §4.2): reads the client's HTTP/1.1
/// `GET` with `Upgrade: websocket`, and answers `101` with `Sec-WebSocket-Accept`.
package enum WebSocketServerHandshake {
    /// Longest request head accepted.
    package static let maximumRequestBytes = 8 << 10

    /// A parsed upgrade request.
    package struct Request: Equatable, Sendable {
        /// The request target.
        package var path: String
        /// `Sec-WebSocket-Key`.
        package var key: String

        /// A request for `path` with `Sec-WebSocket-Key` `key`.
        package init(path: String, key: String) {
            self.path = path
            self.key = key
        }
    }

    /// Parses the request head (up to and including the blank line).
    package static func parse(_ head: [UInt8]) throws(WebSocketProtocolError) -> Request {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let requestLine = lines.first else { throw WebSocketProtocolError(1002, "empty handshake request") }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[2].hasPrefix("HTTP/1.1") else {
            throw WebSocketProtocolError(1002, "handshake request line is not 'GET PATH HTTP/1.1': \(requestLine.prefix(80))")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else { throw WebSocketProtocolError(1002, "handshake without 'Upgrade: websocket'") }
        guard let key = fields["sec-websocket-key"], !key.isEmpty else { throw WebSocketProtocolError(1002, "handshake without Sec-WebSocket-Key") }
        return Request(path: String(parts[1]), key: key)
    }

    /// The `101 Switching Protocols` reply.
    package static func response(for request: Request) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketAcceptKey.value(for: request.key))\r\n\r\n".utf8)
    }

    /// A plain refusal.
    package static let forbidden = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
}
