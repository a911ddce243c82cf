import Testing
import WebSocket

/// The frame header for each role (RFC 6455 §5.2), the masking of §5.3 read in pieces, and
/// the encoder's choice of masking by role.
@Suite struct WebSocketFrameHeaderTests {
    @Test(arguments: [
        (UInt8(0x05), 2, "7-bit length, unmasked"),
        (0x85, 6, "7-bit length, masked"),
        (0x7E, 4, "16-bit length, unmasked"),
        (0xFE, 8, "16-bit length, masked"),
        (0x7F, 10, "64-bit length, unmasked"),
        (0xFF, 14, "64-bit length, masked"),
    ] as [(UInt8, Int, String)])
    func headerSizeFromTheSecondByte(_ second: UInt8, _ expected: Int, _ what: String) {
        #expect(WebSocketFrameHeader.byteCount(secondByte: second) == expected, "\(what)")
    }

    @Test func rfcMaskedHeaderForTheServer() throws {
        // RFC 6455 §5.7: masked "Hello", key 37 fa 21 3d.
        let frame: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let header = try #require(try WebSocketFrameHeader.parse(frame, role: .server))
        #expect(header.final && header.opcode == 0x1 && header.payloadLength == 5 && header.byteCount == 6)
        #expect(header.masking == WebSocketMasking((0x37, 0xFA, 0x21, 0x3D)))
        // Incomplete: only part of the masking key.
        #expect(try WebSocketFrameHeader.parse(Array(frame.prefix(4)), role: .server) == nil)
        // The same header is refused by a client, and the unmasked one by a server.
        #expect(throws: WebSocketProtocolError.self) { try WebSocketFrameHeader.parse(frame, role: .client) }
        let unmasked: [UInt8] = [0x81, 0x05]
        #expect(throws: WebSocketProtocolError(1002, "a client frame without a mask")) {
            try WebSocketFrameHeader.parse(unmasked, role: .server)
        }
    }

    @Test func maskingInPiecesMatchesTheRFC() {
        // "Hello" masked with 37 fa 21 3d (RFC 6455 §5.7), unmasked as 2 + 3 bytes.
        var payload: [UInt8] = [0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let masking = WebSocketMasking((0x37, 0xFA, 0x21, 0x3D))
        payload.withUnsafeMutableBytes { raw in
            masking.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[0..<2]), position: 0)
            masking.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[2..<5]), position: 2)
        }
        #expect(payload == Array("Hello".utf8))
    }

    @Test func wideMaskingMatchesTheScalarDefinition() {
        // Seeded lengths and starting positions; §5.3 byte by byte is the reference.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<200 {
            let key = (UInt8(truncatingIfNeeded: next()), UInt8(truncatingIfNeeded: next()), UInt8(truncatingIfNeeded: next()), UInt8(truncatingIfNeeded: next()))
            let keyBytes = [key.0, key.1, key.2, key.3]
            let length = Int(next() % 100), position = Int(next() % 7)
            let original = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let expected = original.enumerated().map { $0.element ^ keyBytes[($0.offset + position) % 4] }
            var masked = original
            masked.withUnsafeMutableBytes { WebSocketMasking(key).apply(to: $0, position: position) }
            #expect(masked == expected)
        }
    }

    @Test func encoderMasksForAClientOnly() throws {
        // RFC 6455 §5.7: a single-frame unmasked text message "Hello", as a server sends it.
        #expect(WebSocketFrameEncoder.frame(.text, Array("Hello".utf8), role: .server) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        let clientFrame = WebSocketFrameEncoder.frame(.text, Array("Hello".utf8), role: .client)
        #expect(clientFrame.count == 11 && clientFrame[1] == 0x85)
        var server = WebSocketFrameDecoder(role: .server)
        server.append(clientFrame)
        #expect(try server.nextMessage() == .text(Array("Hello".utf8)))
    }
}
