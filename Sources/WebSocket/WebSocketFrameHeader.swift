/// One frame's header (RFC 6455 §5.2), checked for the reading end's role: reserved bits clear,
/// a known opcode, masked exactly when the role requires, control frames final and at most
/// 125 bytes, a 64-bit length with its top bit clear. Limits on sizes are the reader's: the
/// header only reports the length.
package struct WebSocketFrameHeader: Sendable, Hashable {
    /// FIN: the last frame of its message.
    package var final: Bool
    /// The opcode (§5.2; 0x0 continuation, 0x1 text, 0x2 binary, 0x8 close, 0x9 ping, 0xA pong).
    package var opcode: UInt8
    /// The payload length announced.
    package var payloadLength: UInt64
    /// The masking key, present on client frames.
    package var masking: WebSocketMasking?
    /// Header bytes, masking key included.
    package var byteCount: Int

    /// Whether the opcode is a control frame's (close, ping, pong).
    package var isControl: Bool { opcode >= 0x8 }

    /// How many header bytes a frame has, from its first two bytes (the second says whether a
    /// 16- or 64-bit length and a masking key follow).
    package static func byteCount(secondByte: UInt8) -> Int {
        let lengthBytes: Int
        switch secondByte & 0x7F {
        case 126: lengthBytes = 2
        case 127: lengthBytes = 8
        default: lengthBytes = 0
        }
        return 2 + lengthBytes + (secondByte & 0x80 != 0 ? 4 : 0)
    }

    /// Reads the header at the start of `bytes`; `nil` when `bytes` does not hold all of it yet.
    package static func parse(_ bytes: [UInt8], role: WebSocketRole) throws(WebSocketProtocolError) -> WebSocketFrameHeader? {
        try bytes.withUnsafeBytes { raw in Result { () throws(WebSocketProtocolError) in try parse(raw, role: role) } }.get()
    }

    /// Reads the header at the start of `bytes`; `nil` when `bytes` does not hold all of it yet.
    /// Throws as soon as the bytes present break the protocol for `role`.
    package static func parse(_ bytes: UnsafeRawBufferPointer, role: WebSocketRole) throws(WebSocketProtocolError) -> WebSocketFrameHeader? {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[0], second = bytes[1]
        let final = first & 0x80 != 0
        let opcode = first & 0x0F
        guard first & 0x70 == 0 else { throw WebSocketProtocolError(1002, "reserved bits set (no extension was negotiated)") }
        guard [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(opcode) else { throw WebSocketProtocolError(1002, "reserved opcode \(opcode)") }
        let masked = second & 0x80 != 0
        guard masked == role.readsMaskedFrames else {
            throw WebSocketProtocolError(1002, masked ? "masked frame from the server" : "a client frame without a mask")
        }
        let count = byteCount(secondByte: second)
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[2 + $1]) }
            guard length >> 63 == 0 else { throw WebSocketProtocolError(1002, "64-bit length with its top bit set") }
        }
        if opcode >= 0x8 {
            guard final else { throw WebSocketProtocolError(1002, "fragmented control frame") }
            guard length <= 125 else { throw WebSocketProtocolError(1002, "control frame of \(length) bytes (at most 125)") }
        }
        guard bytes.count >= count else { return nil }
        let masking = masked ? WebSocketMasking((bytes[count - 4], bytes[count - 3], bytes[count - 2], bytes[count - 1])) : nil
        return WebSocketFrameHeader(final: final, opcode: opcode, payloadLength: length, masking: masking, byteCount: count)
    }
}
