import Foundation

/// Reads RFC 6455 frames from a byte stream into messages, with fragmentation, interleaved
/// control frames and bounded sizes: a frame or message over `maximumMessageBytes` is refused
/// as soon as its header says so, before its payload arrives.
package struct WebSocketFrameDecoder: Sendable {
    /// The largest message (all fragments) accepted.
    package let maximumMessageBytes: Int
    /// Whether frames must be masked (a server reading a client) or must not be (a client
    /// reading a server, RFC 6455 §5.1).
    package let expectsMaskedFrames: Bool

    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: UInt8?
    private var failed: WebSocketProtocolError?

    package init(maximumMessageBytes: Int = 1 << 20, expectsMaskedFrames: Bool = false) {
        self.maximumMessageBytes = maximumMessageBytes
        self.expectsMaskedFrames = expectsMaskedFrames
    }

    /// Bytes buffered but not yet decoded.
    package var bufferedByteCount: Int { buffer.count - readOffset }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        if readOffset > 0, readOffset >= buffer.count / 2 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, `nil` when more bytes are needed. After an error every later
    /// call throws the same error: the connection must be closed.
    package mutating func nextMessage() throws(WebSocketProtocolError) -> WebSocketMessage? {
        if let failed { throw failed }
        do {
            while let (opcode, final, payload) = try nextFrame() {
                if let message = try assemble(opcode: opcode, final: final, payload: payload) { return message }
            }
            return nil
        } catch {
            failed = error
            throw error
        }
    }

    private mutating func assemble(opcode: UInt8, final: Bool, payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketMessage? {
        switch opcode {
        case 0x8:
            guard payload.count != 1 else { throw WebSocketProtocolError(1002, "close frame with a 1-byte payload") }
            guard payload.count >= 2 else { return .close(code: nil, reason: "") }
            let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard let reason = String(bytes: payload[2...], encoding: .utf8) else { throw WebSocketProtocolError(1007, "close reason is not UTF-8") }
            return .close(code: code, reason: reason)
        case 0x9: return .ping(payload)
        case 0xA: return .pong(payload)
        case 0x0:
            guard let started = fragmentedOpcode else { throw WebSocketProtocolError(1002, "continuation frame with no message started") }
            fragments += payload
            guard final else { return nil }
            fragmentedOpcode = nil
            defer { fragments = [] }
            return try complete(opcode: started, fragments)
        case 0x1, 0x2:
            guard fragmentedOpcode == nil else { throw WebSocketProtocolError(1002, "new data frame inside a fragmented message") }
            guard final else {
                fragmentedOpcode = opcode
                fragments = payload
                return nil
            }
            return try complete(opcode: opcode, payload)
        default:
            throw WebSocketProtocolError(1002, "reserved opcode \(opcode)")
        }
    }

    private func complete(opcode: UInt8, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketMessage {
        guard opcode == 0x1 else { return .binary(payload) }
        guard String(bytes: payload, encoding: .utf8) != nil else { throw WebSocketProtocolError(1007, "text message is not valid UTF-8") }
        return .text(payload)
    }

    /// One whole frame: opcode, FIN and unmasked payload; `nil` when incomplete.
    private mutating func nextFrame() throws(WebSocketProtocolError) -> (UInt8, Bool, [UInt8])? {
        let available = buffer.count - readOffset
        guard available >= 2 else { return nil }
        let first = buffer[readOffset], second = buffer[readOffset + 1]
        let final = first & 0x80 != 0
        let opcode = first & 0x0F
        guard first & 0x70 == 0 else { throw WebSocketProtocolError(1002, "reserved bits set (no extension was negotiated)") }
        let masked = second & 0x80 != 0
        guard masked == expectsMaskedFrames else {
            throw WebSocketProtocolError(1002, masked ? "masked frame from the server" : "unmasked frame from the client")
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readOffset + 2]) << 8 | UInt64(buffer[readOffset + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(buffer[readOffset + 2 + $1]) }
            guard length >> 63 == 0 else { throw WebSocketProtocolError(1002, "64-bit length with its top bit set") }
            headerLength = 10
        }
        if opcode >= 0x8 {
            guard final else { throw WebSocketProtocolError(1002, "fragmented control frame") }
            guard length <= 125 else { throw WebSocketProtocolError(1002, "control frame of \(length) bytes (at most 125)") }
        }
        let pending = opcode == 0 ? fragments.count : 0
        guard length <= UInt64(maximumMessageBytes - pending) else {
            throw WebSocketProtocolError(1009, "message of at least \(UInt64(pending) + length) bytes is over the limit of \(maximumMessageBytes)")
        }
        let maskLength = masked ? 4 : 0
        let total = headerLength + maskLength + Int(length)
        guard available >= total else { return nil }
        let payloadStart = readOffset + headerLength + maskLength
        var payload = Array(buffer[payloadStart..<(payloadStart + Int(length))])
        if masked {
            let key = buffer[(readOffset + headerLength)..<(readOffset + headerLength + 4)].map { $0 }
            for index in payload.indices { payload[index] ^= key[index & 3] }
        }
        readOffset += total
        return (opcode, final, payload)
    }
}
