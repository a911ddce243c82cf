import CallScopeTestSupport
@testable import Connectivity
import Testing

/// Hostile and broken input gives a typed error or a counted drop, never a crash or a trusted
/// answer.
@Suite struct STUNMalformedInputTests {
    static let samples = [RFC5769.request, RFC5769.ipv4Response, RFC5769.ipv6Response, RFC5769.longTermRequest]

    private func kind(_ bytes: [UInt8]) -> STUNDecodingError.Kind? {
        do {
            _ = try STUNMessage(decoding: bytes)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test(arguments: samples)
    func everyTruncationIsATypedError(sample: [UInt8]) {
        for length in 0..<sample.count {
            let expected: STUNDecodingError.Kind = length < 20 ? .truncatedHeader : .badLength
            #expect(kind(Array(sample.prefix(length))) == expected, "\(length) bytes")
        }
    }

    @Test func headerProblems() {
        var bytes = RFC5769.ipv4Response
        bytes[0] |= 0x80
        #expect(kind(bytes) == .notSTUN)
        bytes = RFC5769.ipv4Response
        bytes[5] ^= 0x01
        #expect(kind(bytes) == .badMagicCookie)
        bytes = RFC5769.ipv4Response
        bytes[3] += 4                                               // length says 4 more bytes than sent
        #expect(kind(bytes) == .badLength)
        bytes = RFC5769.ipv4Response + [0, 0, 0, 0]                 // 4 extra bytes the length does not cover
        #expect(kind(bytes) == .badLength)
        bytes = RFC5769.ipv4Response
        bytes[3] -= 1                                               // not a multiple of 4
        #expect(kind(bytes) == .badLength)
    }

    @Test func attributeRunningPastTheMessageIsTruncated() {
        var bytes = RFC5769.request
        bytes[20 + 2] = 0x01                                        // SOFTWARE claims 256+16 bytes
        #expect(kind(bytes) == .truncatedAttribute)
        // A message ending in half an attribute header (length field still consistent).
        var short = Array(RFC5769.ipv4Response.prefix(20)) + [0x80, 0x22, 0x00, 0x08]
        short[3] = 4
        #expect(kind(short) == .truncatedAttribute)
    }

    @Test func integrityAndFingerprintAttributes() {
        var bytes = RFC5769.ipv4Response
        bytes[bytes.count - 1] ^= 0xFF                              // FINGERPRINT value
        #expect(kind(bytes) == .badFingerprint)
        bytes = RFC5769.ipv4Response
        bytes[24] ^= 0x20                                           // one SOFTWARE byte
        #expect(kind(bytes) == .badFingerprint)
        // MESSAGE-INTEGRITY of 16 bytes.
        let id = STUNTransactionID(bytes: RFC5769.transactionID)!
        let short = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .successResponse), transactionID: id,
                                attributes: [STUNAttribute(type: .messageIntegrity, value: [UInt8](repeating: 1, count: 16))])
        var encoded = STUNMessage(type: short.type, transactionID: id).encoded()
        encoded += [0x00, 0x08, 0x00, 0x10] + [UInt8](repeating: 1, count: 16)
        encoded[3] = 20
        #expect(kind(encoded) == .malformedAttribute)
        // FINGERPRINT that is not last.
        let fingerprinted = STUNMessage(type: short.type, transactionID: id).encoded(fingerprint: true)
        var notLast = fingerprinted + [0x80, 0x22, 0x00, 0x00]
        notLast[3] += 4
        #expect(kind(notLast) == .malformedAttribute)
    }

    @Test func longTermSampleWithAChangedByteFailsIntegrity() throws {
        var bytes = RFC5769.longTermRequest
        bytes[30] ^= 0x01                                           // in NONCE; no FINGERPRINT to catch it
        let message = try STUNMessage(decoding: bytes)
        let key = STUNCredentials(username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", password: "TheMatrIX").longTermKey(realm: "example.org")
        #expect(!message.hasValidMessageIntegrity(key: key))
        #expect(!STUNMessage(type: message.type, transactionID: message.transactionID).hasValidMessageIntegrity(key: key))
    }

    @Test func attributesAfterIntegrityAreIgnored() throws {
        var bytes = RFC5769.longTermRequest + [0x80, 0x22, 0x00, 0x04, 0x41, 0x42, 0x43, 0x44]
        bytes[3] += 8
        let message = try STUNMessage(decoding: bytes)
        #expect(!message.contains(.software))
        let key = STUNCredentials(username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", password: "TheMatrIX").longTermKey(realm: "example.org")
        #expect(message.hasValidMessageIntegrity(key: key))
    }

    @Test func badAttributeValuesAreTypedErrors() throws {
        let id = STUNTransactionID.random()
        let type = STUNMessageType(method: .binding, messageClass: .successResponse)
        for value: [UInt8] in [[], [0, 1, 0], [0, 3, 0, 1, 1, 2, 3, 4], [0, 1, 0, 1, 1, 2, 3], [0, 2, 0, 1, 1, 2, 3, 4]] {
            let message = try STUNMessage(decoding: STUNMessage(type: type, transactionID: id, attributes: [STUNAttribute(type: .xorMappedAddress, value: value)]).encoded())
            #expect(throws: STUNDecodingError.self) { try message.mappedAddress() }
        }
        for value: [UInt8] in [[0, 0, 4], [0, 0, 2, 0], [0, 0, 4, 100]] {
            let message = try STUNMessage(decoding: STUNMessage(type: type, transactionID: id, attributes: [STUNAttribute(type: .errorCode, value: value)]).encoded())
            #expect(throws: STUNDecodingError.self) { try message.errorCode() }
        }
    }

    /// 20 000 seeded random mutations of the samples (byte flips, cuts, length rewrites): each
    /// decodes or throws, and whatever decodes re-encodes without trapping.
    @Test func randomMutationsNeverTrap() {
        var generator = SeededGenerator(seed: 5769)
        var decoded = 0, rejected = 0
        for index in 0..<20_000 {
            var bytes = Self.samples[index % Self.samples.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                case 2 where bytes.count >= 4: bytes[3] = UInt8(truncatingIfNeeded: bytes.count - 20)     // keep the length consistent
                default:
                    if bytes.count >= 28 { bytes[22 + 4 * Int.random(in: 0..<((bytes.count - 24) / 4), using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
                }
            }
            if let message = try? STUNMessage(decoding: bytes) {
                decoded += 1
                _ = message.encoded(integrityKey: RFC5769.shortTermPassword, fingerprint: true)
                _ = try? message.mappedAddress()
                _ = try? message.errorCode()
            } else {
                rejected += 1
            }
        }
        #expect(decoded + rejected == 20_000)
        #expect(rejected > 10_000, "most mutations must be caught (FINGERPRINT, lengths)")
    }
}

/// The response filter: what is not our signed response is dropped and counted by reason.
@Suite struct STUNResponseFilterTests {
    let id = STUNTransactionID.random()
    let key = STUNCredentials(username: "u", password: "p").longTermKey(realm: "r")

    private func response(_ method: STUNMethod = .allocate, _ messageClass: STUNMessageClass = .successResponse,
                          id: STUNTransactionID? = nil, key: [UInt8]? = nil, attributes: [STUNAttribute] = []) -> [UInt8] {
        STUNMessage(type: STUNMessageType(method: method, messageClass: messageClass), transactionID: id ?? self.id, attributes: attributes)
            .encoded(integrityKey: key, fingerprint: true)
    }

    @Test func dropsAreCountedByReason() {
        var filter = STUNResponseFilter(transactionID: id, method: .allocate, integrityKey: key)
        #expect(filter.accept([1, 2, 3]) == nil)
        #expect(filter.accept(response(id: .random(), key: key)) == nil)
        #expect(filter.accept(response(.binding, key: key)) == nil)
        #expect(filter.accept(response(.allocate, .request, key: key)) == nil)
        #expect(filter.accept(response(key: nil)) == nil)                                      // unsigned success
        #expect(filter.accept(response(key: STUNCredentials(username: "u", password: "x").longTermKey(realm: "r"))) == nil)
        #expect(filter.accept(response(key: key, attributes: [STUNAttribute(type: .xorRelayedAddress, value: [0, 9, 0, 0])])) == nil)
        #expect(filter.drops == [
            .malformed(.truncatedHeader): 1, .wrongTransaction: 1, .wrongMethod: 1, .notAResponse: 1, .badIntegrity: 2, .unreadableAttribute: 1,
        ])
        #expect(filter.droppedCount == 7)
        #expect(filter.accept(response(key: key)) != nil)
    }

    @Test func unsignedChallengeIsAcceptedSignedOneMustMatch() {
        var filter = STUNResponseFilter(transactionID: id, method: .allocate, integrityKey: key)
        let challenge = [STUNAttribute(type: .errorCode, value: STUNErrorCode(code: 401, reason: "Unauthorized").value), .text(.realm, "r"), .text(.nonce, "n")]
        #expect(filter.accept(response(.allocate, .errorResponse, attributes: challenge)) != nil)
        #expect(filter.accept(response(.allocate, .errorResponse, key: Array("wrong".utf8), attributes: challenge)) == nil)
        #expect(filter.drops == [.badIntegrity: 1])
        var unkeyed = STUNResponseFilter(transactionID: id, method: .allocate)
        #expect(unkeyed.accept(response(key: nil)) != nil)
    }
}
