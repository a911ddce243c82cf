extension STUNMessage {
    /// The total size (header included) of the message whose first bytes are `prefix`, for
    /// reading STUN from a stream (TCP); `nil` until 4 bytes are there. Throws when the prefix
    /// cannot start a STUN message.
    public static func frameSize(prefix: some Collection<UInt8>) throws(STUNDecodingError) -> Int? {
        let bytes = Array(prefix.prefix(4))
        guard bytes.count == 4 else { return nil }
        guard bytes[0] & 0xC0 == 0 else { throw STUNDecodingError(.notSTUN, offset: 0, detail: "first byte 0x\(String(bytes[0], radix: 16))") }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length % 4 == 0 else { throw STUNDecodingError(.badLength, offset: 2, detail: "length \(length) is not a multiple of 4") }
        return headerSize + length
    }

    /// Decodes one whole message (a UDP datagram, or one frame read from TCP).
    ///
    /// Checks: 20-byte header, top bits zero, magic cookie, length a multiple of 4 and equal
    /// to the bytes after the header, every attribute inside the message, MESSAGE-INTEGRITY 20
    /// bytes, FINGERPRINT 4 bytes, last, and matching. MESSAGE-INTEGRITY is not checked here
    /// (it needs the key): see ``hasValidMessageIntegrity(key:)``.
    public init(decoding bytes: [UInt8]) throws(STUNDecodingError) {
        guard bytes.count >= Self.headerSize else {
            throw STUNDecodingError(.truncatedHeader, offset: bytes.count, detail: "\(bytes.count) bytes, a header is 20")
        }
        guard bytes[0] & 0xC0 == 0 else { throw STUNDecodingError(.notSTUN, offset: 0, detail: "first byte 0x\(String(bytes[0], radix: 16))") }
        let cookie = bytes.bigEndianUInt32(at: 4)
        guard cookie == Self.magicCookie else {
            throw STUNDecodingError(.badMagicCookie, offset: 4, detail: "0x\(String(cookie, radix: 16))")
        }
        let length = Int(bytes.bigEndianUInt16(at: 2))
        guard length % 4 == 0, Self.headerSize + length == bytes.count else {
            throw STUNDecodingError(.badLength, offset: 2, detail: "length field \(length), \(bytes.count - Self.headerSize) bytes follow the header")
        }
        let type = STUNMessageType(wireValue: bytes.bigEndianUInt16(at: 0))
        let transactionID = STUNTransactionID(bytes: bytes[8..<20])!

        var attributes: [STUNAttribute] = []
        var integrityOffset: Int?
        var offset = Self.headerSize
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else {
                throw STUNDecodingError(.truncatedAttribute, offset: offset, detail: "\(bytes.count - offset) bytes left, an attribute header is 4")
            }
            let attributeType = STUNAttributeType(rawValue: bytes.bigEndianUInt16(at: offset))
            let valueLength = Int(bytes.bigEndianUInt16(at: offset + 2))
            let valueStart = offset + 4
            let paddedEnd = valueStart + (valueLength + 3) & ~3
            guard paddedEnd <= bytes.count else {
                throw STUNDecodingError(.truncatedAttribute, offset: offset, detail: "\(attributeType) claims \(valueLength) bytes, \(bytes.count - valueStart) remain")
            }
            let value = Array(bytes[valueStart..<(valueStart + valueLength)])
            switch attributeType {
            case .messageIntegrity:
                guard valueLength == 20 else { throw STUNDecodingError(.malformedAttribute, offset: offset, detail: "MESSAGE-INTEGRITY of \(valueLength) bytes, not 20") }
                if integrityOffset == nil {
                    integrityOffset = offset
                    attributes.append(STUNAttribute(type: attributeType, value: value))
                }
            case .fingerprint:
                guard valueLength == 4 else { throw STUNDecodingError(.malformedAttribute, offset: offset, detail: "FINGERPRINT of \(valueLength) bytes, not 4") }
                guard paddedEnd == bytes.count else { throw STUNDecodingError(.malformedAttribute, offset: offset, detail: "FINGERPRINT is not the last attribute") }
                var covered = Array(bytes[0..<offset])
                covered.replaceBigEndianUInt16(at: 2, with: UInt16(offset + 8 - Self.headerSize))
                let expected = CRC32.checksum(covered) ^ Self.fingerprintXOR
                let found = value.bigEndianUInt32(at: 0)
                guard expected == found else {
                    throw STUNDecodingError(.badFingerprint, offset: offset, detail: "0x\(String(found, radix: 16)), the message gives 0x\(String(expected, radix: 16))")
                }
                attributes.append(STUNAttribute(type: attributeType, value: value))
            default:
                if integrityOffset == nil { attributes.append(STUNAttribute(type: attributeType, value: value)) }
            }
            offset = paddedEnd
        }
        self.init(type: type, transactionID: transactionID, attributes: attributes)
        self.decodedBytes = bytes
        self.integrityOffset = integrityOffset
    }

    /// Whether the message carries a MESSAGE-INTEGRITY that matches `key` (the password for
    /// short-term credentials, ``STUNCredentials/longTermKey`` for long-term ones). A message
    /// without one, or built here rather than decoded, is not valid.
    public func hasValidMessageIntegrity(key: [UInt8]) -> Bool {
        guard let bytes = decodedBytes, let integrityOffset else { return false }
        var covered = Array(bytes[0..<integrityOffset])
        covered.replaceBigEndianUInt16(at: 2, with: UInt16(integrityOffset + 24 - Self.headerSize))
        let expected = HMACSHA1.authenticationCode(key: key, message: covered)
        let found = bytes[(integrityOffset + 4)..<(integrityOffset + 24)]
        var difference: UInt8 = 0                  // compare every byte: no early exit on a mismatch
        for (left, right) in zip(expected, found) { difference |= left ^ right }
        return difference == 0
    }
}

extension Array where Element == UInt8 {
    /// The big-endian 16-bit value at `offset` (the caller checked the bounds).
    func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    /// The big-endian 32-bit value at `offset` (the caller checked the bounds).
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    /// Overwrites two bytes at `offset` with `value`, big-endian.
    mutating func replaceBigEndianUInt16(at offset: Int, with value: UInt16) {
        self[offset] = UInt8(value >> 8)
        self[offset + 1] = UInt8(value & 0xFF)
    }

    /// Appends `value` big-endian.
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    /// Appends `value` big-endian.
    mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(value >> 16))
        appendBigEndian(UInt16(value & 0xFFFF))
    }
}
