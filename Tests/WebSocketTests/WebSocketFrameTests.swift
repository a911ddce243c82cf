import Testing
import WebSocket

/// RFC 6455 framing on hand-built frames (the examples of RFC 6455 §5.7 where there is one).
@Suite struct WebSocketFrameTests {
    private func decodeAll(_ bytes: [UInt8], masked: Bool = false, limit: Int = 1 << 20) throws(WebSocketProtocolError) -> [WebSocketMessage] {
        var decoder = WebSocketFrameDecoder(maximumMessageBytes: limit, role: masked ? .server : .client)
        decoder.append(bytes)
        var messages: [WebSocketMessage] = []
        while let message = try decoder.nextMessage() { messages.append(message) }
        return messages
    }

    private func closeCode(_ bytes: [UInt8], masked: Bool = false, limit: Int = 1 << 20) -> UInt16? {
        do {
            _ = try decodeAll(bytes, masked: masked, limit: limit)
            return nil
        } catch {
            return error.closeCode
        }
    }

    @Test func unmaskedTextFromRFC() throws {
        #expect(try decodeAll([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]) == [.text(Array("Hello".utf8))])
    }

    @Test func maskedTextFromRFC() throws {
        let frame: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try decodeAll(frame, masked: true) == [.text(Array("Hello".utf8))])
        #expect(WebSocketFrameEncoder.frame(.text, Array("Hello".utf8), maskingKey: [0x37, 0xFA, 0x21, 0x3D]) == frame)
    }

    @Test func fragmentedTextWithInterleavedPing() throws {
        // "Hel" + ping "Hello" + "lo" (RFC 6455 §5.7's fragments and ping).
        let bytes: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C] + [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F] + [0x80, 0x02, 0x6C, 0x6F]
        #expect(try decodeAll(bytes) == [.ping(Array("Hello".utf8)), .text(Array("Hello".utf8))])
    }

    @Test func sixteenAndSixtyFourBitLengths() throws {
        let short = [UInt8](repeating: 0xAB, count: 256)
        #expect(try decodeAll([0x82, 0x7E, 0x01, 0x00] + short) == [.binary(short)])
        let long = [UInt8](repeating: 0xCD, count: 65536)
        #expect(try decodeAll([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + long) == [.binary(long)])
        // Our encoder picks the same encodings.
        #expect(Array(WebSocketFrameEncoder.frame(.binary, short, maskingKey: nil).prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(WebSocketFrameEncoder.frame(.binary, long, maskingKey: nil).prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func truncatedFramesWaitForTheirBytes() throws {
        let frame: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 7, count: 256)
        var decoder = WebSocketFrameDecoder()
        for byte in frame.dropLast() {
            decoder.append([byte])
            #expect(try decoder.nextMessage() == nil)
        }
        decoder.append([frame.last!])
        #expect(try decoder.nextMessage() == .binary([UInt8](repeating: 7, count: 256)))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func closeFrameCodeAndReason() throws {
        #expect(try decodeAll([0x88, 0x04, 0x03, 0xE8, 0x6F, 0x6B]) == [.close(code: 1000, reason: "ok")])
        #expect(try decodeAll([0x88, 0x00]) == [.close(code: nil, reason: "")])
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: "ok") == [0x03, 0xE8, 0x6F, 0x6B])
    }

    @Test func oversizedFrameIsRefusedFromItsHeader() {
        // 2 MiB announced, only the header present, 1 MiB limit.
        #expect(closeCode([0x82, 0x7F, 0, 0, 0, 0, 0, 0x20, 0, 0]) == 1009)
        // Fragments that add up past the limit.
        #expect(closeCode([0x02, 0x7E, 0x00, 0x64] + [UInt8](repeating: 1, count: 100) + [0x80, 0x7E, 0x00, 0x64], limit: 150) == 1009)
    }

    @Test(arguments: [
        ([0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0], "masked frame from a server"),
        ([0xC1, 0x00], "RSV1 without an extension"),
        ([0x83, 0x00], "reserved data opcode"),
        ([0x8B, 0x00], "reserved control opcode"),
        ([0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), "control frame over 125 bytes"),
        ([0x09, 0x00], "fragmented ping"),
        ([0x80, 0x01, 0x41], "continuation with nothing started"),
        ([0x01, 0x01, 0x41, 0x81, 0x01, 0x42], "new text inside a fragmented message"),
        ([0x88, 0x01, 0x03], "close with a 1-byte payload"),
        ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], "64-bit length with the top bit set"),
    ] as [([UInt8], String)])
    func protocolViolationsClose1002(_ frame: [UInt8], _ what: String) {
        #expect(closeCode(frame) == 1002, "\(what)")
    }

    @Test func invalidUTF8TextCloses1007() {
        #expect(closeCode([0x81, 0x02, 0xC3, 0x28]) == 1007)
        #expect(closeCode([0x88, 0x04, 0x03, 0xE8, 0xFF, 0xFE]) == 1007)
    }

    @Test func errorsAreSticky() {
        var decoder = WebSocketFrameDecoder()
        decoder.append([0xC1, 0x00, 0x81, 0x01, 0x41])
        #expect(throws: WebSocketProtocolError.self) { try decoder.nextMessage() }
        #expect(throws: WebSocketProtocolError.self) { try decoder.nextMessage() }
    }

    @Test func unmaskedFrameFromAClientIsRefused() {
        #expect(closeCode([0x81, 0x01, 0x41], masked: true) == 1002)
    }
}
