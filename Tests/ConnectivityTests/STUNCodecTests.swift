@testable import Connectivity
import Testing

/// The codec against RFC 5769's sample messages, decoded and rebuilt byte for byte.
@Suite struct STUNCodecTests {
    @Test func sampleRequestDecodesAndChecks() throws {
        #expect(RFC5769.request.count == 108)
        let message = try STUNMessage(decoding: RFC5769.request)
        #expect(message.type == STUNMessageType(method: .binding, messageClass: .request))
        #expect(message.transactionID.bytes == RFC5769.transactionID)
        #expect(message.text(of: .software) == "STUN test client")
        #expect(message.text(of: .username) == "evtj:h6vY")
        #expect(message.value(of: STUNAttributeType(rawValue: 0x0024)) == [0x6E, 0x00, 0x01, 0xFF])   // PRIORITY, kept raw
        #expect(message.contains(.fingerprint))
        #expect(message.hasValidMessageIntegrity(key: RFC5769.shortTermPassword))
        #expect(!message.hasValidMessageIntegrity(key: Array("VOkJxbRl1RmTxUk/WvJxBT".utf8)))
    }

    @Test(arguments: [
        (RFC5769.ipv4Response, "192.0.2.1:32853"),
        (RFC5769.ipv6Response, "[2001:db8:1234:5678:11:2233:4455:6677]:32853"),
    ])
    func sampleResponsesDecodeToTheDocumentedAddress(bytes: [UInt8], address: String) throws {
        let message = try STUNMessage(decoding: bytes)
        #expect(message.type == STUNMessageType(method: .binding, messageClass: .successResponse))
        #expect(message.text(of: .software) == "test vector")
        #expect(try message.mappedAddress()?.description == address)
        #expect(message.hasValidMessageIntegrity(key: RFC5769.shortTermPassword))
    }

    @Test func longTermRequestChecksUnderMD5Key() throws {
        let message = try STUNMessage(decoding: RFC5769.longTermRequest)
        let username = try #require(message.text(of: .username))
        #expect(username == "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}")
        #expect(message.text(of: .realm) == "example.org")
        #expect(message.text(of: .nonce) == "f//499k954d6OL34oL9FSTvy64sA")
        #expect(!message.contains(.fingerprint))
        let key = STUNCredentials(username: username, password: "TheMatrIX").longTermKey(realm: "example.org")
        #expect(hexString(key) == hexString(MD5.digest(Array("\(username):example.org:TheMatrIX".utf8))))
        #expect(message.hasValidMessageIntegrity(key: key))
        #expect(!message.hasValidMessageIntegrity(key: STUNCredentials(username: username, password: "TheMatrix").longTermKey(realm: "example.org")))
    }

    /// Rebuilt from the decoded attributes (integrity and fingerprint recomputed), every sample
    /// comes out byte for byte: the RFC pads with spaces in §2.1–2.3, with zeros in §2.4.
    @Test(arguments: [
        (RFC5769.request, RFC5769.shortTermPassword, true, UInt8(0x20)),
        (RFC5769.ipv4Response, RFC5769.shortTermPassword, true, UInt8(0x20)),
        (RFC5769.ipv6Response, RFC5769.shortTermPassword, true, UInt8(0x20)),
        (RFC5769.longTermRequest, STUNCredentials(username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", password: "TheMatrIX").longTermKey(realm: "example.org"), false, UInt8(0)),
    ])
    func encoderRebuildsTheSamples(bytes: [UInt8], key: [UInt8], fingerprint: Bool, padding: UInt8) throws {
        let message = try STUNMessage(decoding: bytes)
        #expect(message.encoded(integrityKey: key, fingerprint: fingerprint, paddingByte: padding) == bytes)
    }

    @Test func xorAddressesRoundTrip() throws {
        let id = try #require(STUNTransactionID(bytes: RFC5769.transactionID))
        let v4 = try #require(STUNTransportAddress(family: .ipv4, address: [192, 0, 2, 1], port: 32853))
        #expect(hexString(v4.xorValue(transactionID: id)) == "0001a147e112a643")       // §2.2's bytes
        let v6 = try #require(STUNTransportAddress(family: .ipv6, address: hexBytes("20010db8123456780011223344556677"), port: 32853))
        #expect(try STUNTransportAddress(xorValue: v6.xorValue(transactionID: id), transactionID: id) == v6)
        #expect(STUNTransportAddress(family: .ipv4, address: [1, 2, 3], port: 1) == nil)
    }

    /// Message types against RFC 8489 §5 / RFC 8656's published values.
    @Test(arguments: [
        (STUNMethod.binding, STUNMessageClass.request, UInt16(0x0001)),
        (.binding, .indication, 0x0011),
        (.binding, .successResponse, 0x0101),
        (.binding, .errorResponse, 0x0111),
        (.allocate, .request, 0x0003),
        (.allocate, .successResponse, 0x0103),
        (.allocate, .errorResponse, 0x0113),
        (.refresh, .request, 0x0004),
        (.refresh, .successResponse, 0x0104),
    ])
    func messageTypesInterleave(method: STUNMethod, messageClass: STUNMessageClass, wire: UInt16) {
        let type = STUNMessageType(method: method, messageClass: messageClass)
        #expect(type.wireValue == wire)
        #expect(STUNMessageType(wireValue: wire) == type)
    }

    @Test func errorCodeAndLifetime() throws {
        let id = STUNTransactionID.random()
        let response = STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .errorResponse), transactionID: id, attributes: [
            STUNAttribute(type: .errorCode, value: STUNErrorCode(code: 401, reason: "Unauthorized").value),
            .text(.realm, "callscope"), .text(.nonce, "abc"), .lifetime(seconds: 600),
        ])
        let decoded = try STUNMessage(decoding: response.encoded(fingerprint: true))
        #expect(try decoded.errorCode() == STUNErrorCode(code: 401, reason: "Unauthorized"))
        #expect(decoded.text(of: .realm) == "callscope")
        #expect(try decoded.lifetimeSeconds() == 600)
        #expect(hexBytes("00000401") == [0, 0, 4, 1])
        #expect(STUNErrorCode(code: 438, reason: "").value.prefix(4) == [0, 0, 4, 38])
    }

    @Test func retransmissionScheduleFollowsRFC8489() {
        // RFC 8489 §6.2.1's example: RTO 500 ms, Rc 7, Rm 16 → sends at 0, 500, 1500, 3500,
        // 7500, 15500, 31500 ms; gives up at 39500 ms.
        let rfc = STUNRetransmissionSchedule.rfcDefault
        #expect(rfc.sendOffsets == [0, 500, 1500, 3500, 7500, 15500, 31500].map { Duration.milliseconds($0) })
        #expect(rfc.giveUpAfter == .milliseconds(39500))
        #expect(STUNRetransmissionSchedule.probeDefault.sendOffsets == [.zero, .milliseconds(500), .milliseconds(1500)])
        #expect(STUNRetransmissionSchedule.probeDefault.giveUpAfter == .milliseconds(2500))
        #expect(STUNRetransmissionSchedule(initialRTO: .seconds(1), transmissions: 0, finalWaitMultiplier: 0).giveUpAfter == .seconds(1))
    }
}
