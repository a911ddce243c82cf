/// Writes RFC 6455 frames. A client masks every frame with a fresh random key (§5.3).
package enum WebSocketFrameEncoder {
    /// Opcodes the client sends.
    package enum Opcode: UInt8, Sendable {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
    }

    /// One frame of `payload`; masked with `maskingKey` (4 bytes) when given; `final` false for
    /// all but the last fragment.
    package static func frame(_ opcode: Opcode, _ payload: [UInt8], maskingKey: [UInt8]?, final: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode.rawValue]
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64($0))) }
        }
        guard let key = maskingKey, let masking = WebSocketMasking(key) else { return frame + payload }
        frame += key
        frame += masking.applied(to: payload)
        return frame
    }

    /// One frame as `role` sends it: a client masks it with a fresh random key, a server does not.
    package static func frame(_ opcode: Opcode, _ payload: [UInt8], role: WebSocketRole, final: Bool = true) -> [UInt8] {
        frame(opcode, payload, maskingKey: role == .client ? randomMaskingKey() : nil, final: final)
    }

    /// A fresh random masking key.
    package static func randomMaskingKey() -> [UInt8] { WebSocketMasking.random().bytes }

    /// A close frame's payload: status code and reason.
    package static func closePayload(code: UInt16, reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }
}
