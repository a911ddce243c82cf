#if canImport(Glibc)
import Glibc
#endif
@testable import CallsChromium
import Foundation
import VideoFrames
import WebSocket

/// A WebSocket client over a plain socket for the frame-channel tests: it opens with a
/// handshake and sends masked binary messages, optionally cut into several frames. Requests
/// and frames come from the WebSocket module's client side, checked against RFC 6455's
/// examples in WebSocketTests; the server reads them with its own streaming reader.
final class FrameChannelClient {
    let fd: Int32
    /// The server's `101` reply head.
    private(set) var handshakeReply = ""

    /// Connects to 127.0.0.1:`port` and asks for `path` with the RFC's sample key.
    init(port: UInt16, path: String, key: String = "dGhlIHNhbXBsZSBub25jZQ==") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ClientError("connect: \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try write(WebSocketClientHandshake(host: "127.0.0.1", port: port, path: path, subprotocol: nil, key: key).request)
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard read(fd, &byte, 1) == 1 else { break }
            head.append(byte)
        }
        handshakeReply = String(decoding: head, as: UTF8.self)
    }

    deinit { close(fd) }

    /// Sends `payload` as one binary message in `pieces` frames, each masked with `mask`.
    func sendMessage(_ payload: [UInt8], pieces: Int = 1, mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d], opcode: UInt8 = 0x2) throws {
        let size = max(1, (payload.count + pieces - 1) / max(pieces, 1))
        var chunks = stride(from: 0, to: payload.count, by: size).map { Array(payload[$0..<min($0 + size, payload.count)]) }
        if chunks.isEmpty { chunks = [[]] }
        guard let first = WebSocketFrameEncoder.Opcode(rawValue: opcode) else { throw ClientError("opcode \(opcode) is not one the encoder writes") }
        for (index, chunk) in chunks.enumerated() {
            try write(WebSocketFrameEncoder.frame(index == 0 ? first : .continuation, chunk, maskingKey: mask, final: index == chunks.count - 1))
        }
    }

    /// Sends a close frame.
    func sendClose() throws { try write(WebSocketFrameEncoder.frame(.close, [], maskingKey: [1, 2, 3, 4])) }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError("send: \(errno)") }
            sent += n
        }
    }

    struct ClientError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
