import Foundation

/// Reads RFC 6455 frames from a byte stream into messages, with fragmentation, interleaved
/// control frames and bounded sizes: a frame or message over `maximumMessageBytes` is refused
/// as soon as its header says so, before its payload arrives.
package struct WebSocketFrameDecoder: Sendable {
    /// The largest message (all fragments) accepted.
    package let maximumMessageBytes: Int
    /// The reading end: a server requires masked frames, a client refuses them (RFC 6455 §5.1).
    package let role: WebSocketRole

    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: UInt8?
    private var failed: WebSocketProtocolError?

    /// A decoder for `role`'s end, refusing messages over `maximumMessageBytes`.
    package init(maximumMessageBytes: Int = 1 << 20, role: WebSocketRole = .client) {
        self.maximumMessageBytes = maximumMessageBytes
        self.role = role
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
        let role = role
        let start = readOffset
        let parsed = buffer.withUnsafeBytes { all in
            Result { () throws(WebSocketProtocolError) in try WebSocketFrameHeader.parse(UnsafeRawBufferPointer(rebasing: all[start...]), role: role) }
        }
        guard let header = try parsed.get() else { return nil }
        let pending = header.opcode == 0 ? fragments.count : 0
        guard header.payloadLength <= UInt64(maximumMessageBytes - pending) else {
            throw WebSocketProtocolError(1009, "message of at least \(UInt64(pending) + header.payloadLength) bytes is over the limit of \(maximumMessageBytes)")
        }
        let length = Int(header.payloadLength)
        guard buffer.count - readOffset >= header.byteCount + length else { return nil }
        let payloadStart = readOffset + header.byteCount
        var payload = Array(buffer[payloadStart..<(payloadStart + length)])
        if let masking = header.masking { payload.withUnsafeMutableBytes { masking.apply(to: $0, position: 0) } }
        readOffset = payloadStart + length
        return (header.opcode, header.final, payload)
    }
}
