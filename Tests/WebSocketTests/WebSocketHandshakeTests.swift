import Testing
import WebSocket

/// The opening handshake of both ends (RFC 6455 §1.2, §1.3, §4.1, §4.2) on the RFC's own
/// sample request and key.
@Suite struct WebSocketHandshakeTests {
    /// RFC 6455 §1.2's sample client handshake.
    static let rfcRequest = "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\nSec-WebSocket-Protocol: chat, superchat\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n"

    @Test func acceptValueIsTheRFCExample() {
        // RFC 6455 §1.3: key "dGhlIHNhbXBsZSBub25jZQ==" → SHA-1 b3 7a 4f 2c … c4 ea →
        // "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" (also Python's hashlib + base64 on the same string).
        #expect(WebSocketAcceptKey.value(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func handshakeAcceptFromRFC() throws {
        // RFC 6455 §1.3: key "dGhlIHNhbXBsZSBub25jZQ==" → accept "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
        let handshake = WebSocketClientHandshake(host: "127.0.0.1", port: 5280, path: "/xmpp-websocket", subprotocol: "xmpp", key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(handshake.expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: xmpp\r\n\r\n"
        try handshake.validate(responseHeader: Array(good.utf8))
        #expect(WebSocketClientHandshake.headerEnd(in: Array((good + "tail").utf8)) == good.utf8.count)
        let wrongAccept = good.replacingOccurrences(of: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", with: "AAAA")
        #expect(throws: WebSocketProtocolError.self) { try handshake.validate(responseHeader: Array(wrongAccept.utf8)) }
        let noProtocol = good.replacingOccurrences(of: "Sec-WebSocket-Protocol: xmpp\r\n", with: "")
        #expect(throws: WebSocketProtocolError.self) { try handshake.validate(responseHeader: Array(noProtocol.utf8)) }
        #expect(throws: WebSocketProtocolError.self) { try handshake.validate(responseHeader: Array("HTTP/1.1 200 OK\r\n\r\n".utf8)) }
        let request = String(decoding: handshake.request, as: UTF8.self)
        #expect(request.hasPrefix("GET /xmpp-websocket HTTP/1.1\r\n"))
        #expect(request.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        #expect(request.contains("Sec-WebSocket-Version: 13\r\n"))
        #expect(request.hasSuffix("\r\n\r\n"))
    }

    @Test func serverReadsTheRFCRequestAndAnswers101() throws {
        let request = try WebSocketServerHandshake.parse(Array(Self.rfcRequest.utf8))
        #expect(request == WebSocketServerHandshake.Request(path: "/chat", key: "dGhlIHNhbXBsZSBub25jZQ=="))
        let answer = String(decoding: WebSocketServerHandshake.response(for: request), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(answer.contains("Upgrade: websocket\r\n") && answer.contains("Connection: Upgrade\r\n"))
        #expect(answer.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(answer.hasSuffix("\r\n\r\n"))
    }

    @Test(arguments: [
        ("", "empty request"),
        ("POST /chat HTTP/1.1\r\nUpgrade: websocket\r\nSec-WebSocket-Key: a2V5\r\n\r\n", "not a GET"),
        ("GET /chat HTTP/1.0\r\nUpgrade: websocket\r\nSec-WebSocket-Key: a2V5\r\n\r\n", "HTTP/1.0"),
        ("GET /chat HTTP/1.1\r\nSec-WebSocket-Key: a2V5\r\n\r\n", "no Upgrade"),
        ("GET /chat HTTP/1.1\r\nUpgrade: h2c\r\nSec-WebSocket-Key: a2V5\r\n\r\n", "Upgrade to something else"),
        ("GET /chat HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", "no key"),
    ])
    func serverRefusesABadRequest(_ head: String, _ what: String) {
        #expect(throws: WebSocketProtocolError.self, "\(what)") { try WebSocketServerHandshake.parse(Array(head.utf8)) }
    }

    @Test func clientAndServerAgree() throws {
        // Our client's request read by our server, and our server's answer checked by our client
        // (without a subprotocol: the server asks for none).
        let client = WebSocketClientHandshake(host: "127.0.0.1", port: 8080, path: "/frames/token", subprotocol: nil)
        #expect(!String(decoding: client.request, as: UTF8.self).contains("Sec-WebSocket-Protocol"))
        let request = try WebSocketServerHandshake.parse(client.request)
        #expect(request.path == "/frames/token" && request.key == client.key)
        try client.validate(responseHeader: WebSocketServerHandshake.response(for: request))
        #expect(throws: WebSocketProtocolError.self) { try client.validate(responseHeader: WebSocketServerHandshake.forbidden) }
        // The same answer lacks the subprotocol an XMPP client asks for.
        let xmpp = WebSocketClientHandshake(host: "127.0.0.1", port: 8080, path: "/", subprotocol: "xmpp", key: client.key)
        #expect(throws: WebSocketProtocolError.self) { try xmpp.validate(responseHeader: WebSocketServerHandshake.response(for: request)) }
    }
}
