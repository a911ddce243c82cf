#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server side of a WebSocket connection (RFC 6455) after its handshake: reads the
/// client's data messages, unmasked, frame by frame across continuation frames, answers
/// pings and ends at a close.
///
/// A message is read in pieces (``read(into:)``) so that a frame's planes land directly in
/// their final memory: Chromium may cut one `send()` into several WebSocket frames.
final class WebSocketMessageReader {
    /// How a connection ended or broke.
    enum Failure: Error, Equatable {
        /// The peer closed the connection (close frame or end of stream).
        case closed
        /// The peer broke the protocol; the text says how.
        case protocolViolation(String)
    }

    private let input: SocketByteReader
    private var inMessage = false
    private var frameRemaining = 0
    private var finalFrame = true
    private var mask: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    private var maskPosition = 0

    init(input: SocketByteReader) { self.input = input }

    /// Moves to the next data message (skipping what is left of the current one); returns
    /// whether it is binary.
    func nextMessage() throws(Failure) -> Bool {
        if inMessage { _ = try skipRestOfMessage() }
        while true {
            let (opcode, fin) = try readFrameHeader()
            switch opcode {
            case 0x1, 0x2:
                inMessage = true
                finalFrame = fin
                return opcode == 0x2
            case 0x0:
                throw .protocolViolation("continuation frame outside a message")
            default:
                throw .protocolViolation("unknown opcode \(opcode)")
            }
        }
    }

    /// Reads up to `destination.count` bytes of the current message; fewer only when the
    /// message ended.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        var filled = 0
        while filled < destination.count {
            if frameRemaining == 0 {
                guard inMessage, !finalFrame else { inMessage = false; break }
                let (opcode, fin) = try readFrameHeader()
                guard opcode == 0x0 else { throw .protocolViolation("opcode \(opcode) inside a fragmented message") }
                finalFrame = fin
                continue
            }
            let count = min(frameRemaining, destination.count - filled)
            let piece = UnsafeMutableRawBufferPointer(rebasing: destination[filled..<(filled + count)])
            guard input.readExactly(into: piece) else { throw .closed }
            unmask(piece)
            frameRemaining -= count
            filled += count
        }
        if frameRemaining == 0, finalFrame { inMessage = false }
        return filled
    }

    /// Skips the rest of the current message; returns how many bytes it had.
    func skipRestOfMessage() throws(Failure) -> Int {
        var skipped = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { scratch.deallocate() }
        while inMessage {
            skipped += try read(into: scratch)
        }
        return skipped
    }

    // MARK: - Frames

    /// Reads frame headers until a data frame's; answers pings, ignores pongs, ends on close.
    private func readFrameHeader() throws(Failure) -> (opcode: UInt8, fin: Bool) {
        while true {
            guard let head = input.readBytes(2) else { throw .closed }
            let fin = head[0] & 0x80 != 0
            let opcode = head[0] & 0x0F
            guard head[0] & 0x70 == 0 else { throw .protocolViolation("reserved bits set without an extension") }
            guard head[1] & 0x80 != 0 else { throw .protocolViolation("a client frame without a mask") }
            var length = UInt64(head[1] & 0x7F)
            if length == 126 {
                guard let extended = input.readBytes(2) else { throw .closed }
                length = UInt64(extended[0]) << 8 | UInt64(extended[1])
            } else if length == 127 {
                guard let extended = input.readBytes(8) else { throw .closed }
                length = extended.reduce(0) { $0 << 8 | UInt64($1) }
            }
            guard let key = input.readBytes(4) else { throw .closed }
            guard length <= UInt64(Int32.max) else { throw .protocolViolation("a frame of \(length) bytes") }
            mask = (key[0], key[1], key[2], key[3])
            maskPosition = 0
            if opcode >= 0x8 {
                guard fin, length <= 125 else { throw .protocolViolation("control frame of \(length) bytes or fragmented") }
                guard var payload = input.readBytes(Int(length)) else { throw .closed }
                payload.withUnsafeMutableBytes { unmask($0) }
                switch opcode {
                case 0x8:
                    reply(opcode: 0x8, payload: Array(payload.prefix(2)))
                    throw .closed
                case 0x9:
                    reply(opcode: 0xA, payload: payload)
                default:
                    break
                }
                continue
            }
            frameRemaining = Int(length)
            return (opcode, fin)
        }
    }

    /// XORs `bytes` with the frame's mask, continuing where the last call stopped.
    private func unmask(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let key = [mask.0, mask.1, mask.2, mask.3]
        var rotated: UInt64 = 0
        for index in 0..<8 { rotated |= UInt64(key[(maskPosition + index) % 4]) << (8 * UInt64(index)) }
        let wide = UInt64(littleEndian: rotated)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: word ^ wide, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bytes[offset] ^= key[(maskPosition + offset) % 4]
            offset += 1
        }
        maskPosition = (maskPosition + bytes.count) % 4
    }

    /// Sends a short unmasked server frame (pong, close); failures are ignored (the read side
    /// sees the broken connection).
    private func reply(opcode: UInt8, payload: [UInt8]) {
        let frame = [0x80 | opcode, UInt8(payload.count)] + payload
        _ = frame.withUnsafeBytes { send(input.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
