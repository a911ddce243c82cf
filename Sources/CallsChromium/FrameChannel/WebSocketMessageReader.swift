#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocket

/// The server side of a WebSocket connection (RFC 6455) after its handshake: reads the
/// client's data messages, unmasked, frame by frame across continuation frames, answers
/// pings and ends at a close. Frame headers are checked by ``WebSocketFrameHeader`` for the
/// server role; only the reading in pieces is done here.
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

    /// The largest frame accepted (its planes are read into memory sized from its header).
    static let maximumFrameBytes = UInt64(Int32.max)

    private let input: SocketByteReader
    private var inMessage = false
    private var frameRemaining = 0
    private var finalFrame = true
    private var masking = WebSocketMasking((0, 0, 0, 0))
    private var maskPosition = 0

    init(input: SocketByteReader) { self.input = input }

    /// Moves to the next data message (skipping what is left of the current one); returns
    /// whether it is binary.
    func nextMessage() throws(Failure) -> Bool {
        if inMessage { _ = try skipRestOfMessage() }
        let header = try readDataFrameHeader()
        guard header.opcode != 0x0 else { throw .protocolViolation("continuation frame outside a message") }
        inMessage = true
        finalFrame = header.final
        return header.opcode == 0x2
    }

    /// Reads up to `destination.count` bytes of the current message; fewer only when the
    /// message ended.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        var filled = 0
        while filled < destination.count {
            if frameRemaining == 0 {
                guard inMessage, !finalFrame else { inMessage = false; break }
                let header = try readDataFrameHeader()
                guard header.opcode == 0x0 else { throw .protocolViolation("opcode \(header.opcode) inside a fragmented message") }
                finalFrame = header.final
                continue
            }
            let count = min(frameRemaining, destination.count - filled)
            let piece = UnsafeMutableRawBufferPointer(rebasing: destination[filled..<(filled + count)])
            guard input.readExactly(into: piece) else { throw .closed }
            masking.apply(to: piece, position: maskPosition)
            maskPosition = (maskPosition + count) & 3
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
    private func readDataFrameHeader() throws(Failure) -> WebSocketFrameHeader {
        while true {
            let header = try readFrameHeader()
            masking = header.masking ?? WebSocketMasking((0, 0, 0, 0))
            maskPosition = 0
            guard header.isControl else {
                frameRemaining = Int(header.payloadLength)
                return header
            }
            guard let payload = input.readBytes(Int(header.payloadLength)) else { throw .closed }
            let data = masking.applied(to: payload)
            switch header.opcode {
            case 0x8:
                reply(.close, Array(data.prefix(2)))
                throw .closed
            case 0x9:
                reply(.pong, data)
            default:
                break
            }
        }
    }

    /// One frame header, checked for the server role and the size limit.
    private func readFrameHeader() throws(Failure) -> WebSocketFrameHeader {
        guard var bytes = input.readBytes(2) else { throw .closed }
        let count = WebSocketFrameHeader.byteCount(secondByte: bytes[1])
        if count > 2 {
            guard let rest = input.readBytes(count - 2) else { throw .closed }
            bytes += rest
        }
        let parsed: WebSocketFrameHeader?
        do {
            parsed = try WebSocketFrameHeader.parse(bytes, role: .server)
        } catch {
            throw .protocolViolation(error.message)
        }
        guard let header = parsed else { throw .protocolViolation("incomplete frame header") }
        guard header.payloadLength <= Self.maximumFrameBytes else { throw .protocolViolation("a frame of \(header.payloadLength) bytes") }
        return header
    }

    /// Sends a short unmasked server frame (pong, close); failures are ignored (the read side
    /// sees the broken connection).
    private func reply(_ opcode: WebSocketFrameEncoder.Opcode, _ payload: [UInt8]) {
        let frame = WebSocketFrameEncoder.frame(opcode, payload, role: .server)
        _ = frame.withUnsafeBytes { send(input.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
