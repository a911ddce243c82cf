import Foundation

/// The client's opening handshake (RFC 6455 §4.1), with an optional subprotocol (`xmpp` for
/// RFC 7395 §3.2): the request, and the check of the server's 101 answer, its
/// `Sec-WebSocket-Accept` included.
package struct WebSocketClientHandshake: Sendable {
    /// The most header bytes accepted from the server.
    package static let maximumResponseBytes = 16 << 10

    /// The server's host (an IPv6 literal is bracketed in `Host:`).
    package let host: String
    /// The server's port.
    package let port: UInt16
    /// The request target (`/` when empty).
    package let path: String
    /// `Sec-WebSocket-Key`: 16 random bytes, base64.
    package let key: String
    /// `Sec-WebSocket-Protocol` asked for, and required in the answer; `nil` for none.
    package let subprotocol: String?

    /// A handshake for `path` on `host`:`port`, asking for `subprotocol`; `key` random unless given.
    package init(host: String, port: UInt16, path: String, subprotocol: String?,
                 key: String = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()) {
        self.host = host
        self.port = port
        self.path = path
        self.subprotocol = subprotocol
        self.key = key
    }

    /// The HTTP/1.1 upgrade request.
    package var request: [UInt8] {
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return Array(("GET \(path.isEmpty ? "/" : path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n" + (subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? "") + "\r\n").utf8)
    }

    /// The `Sec-WebSocket-Accept` the server must answer: base64(SHA-1(key + GUID)).
    package var expectedAccept: String { WebSocketAcceptKey.value(for: key) }

    /// Where the response header ends in `bytes` (the index after `\r\n\r\n`), `nil` when not yet.
    package static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// Checks the response header: 101, `Upgrade: websocket`, `Connection: upgrade`, the right
    /// accept value and the subprotocol asked for.
    package func validate(responseHeader bytes: some Collection<UInt8>) throws(WebSocketProtocolError) {
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw WebSocketProtocolError(1002, "handshake response is not UTF-8") }
        let lines = text.components(separatedBy: "\r\n")
        let status = lines.first ?? ""
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.1"), parts[1] == "101" else {
            throw WebSocketProtocolError(1002, "handshake answered \(status.prefix(120)), not 101 Switching Protocols")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else { throw WebSocketProtocolError(1002, "handshake without Upgrade: websocket") }
        guard headers["connection"]?.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true else {
            throw WebSocketProtocolError(1002, "handshake without Connection: Upgrade")
        }
        guard headers["sec-websocket-accept"] == expectedAccept else {
            throw WebSocketProtocolError(1002, "Sec-WebSocket-Accept \(headers["sec-websocket-accept"] ?? "missing") is not \(expectedAccept)")
        }
        if let subprotocol, headers["sec-websocket-protocol"] != subprotocol {
            throw WebSocketProtocolError(1002, "server did not accept the \(subprotocol) subprotocol (\(headers["sec-websocket-protocol"] ?? "none"))")
        }
    }
}
