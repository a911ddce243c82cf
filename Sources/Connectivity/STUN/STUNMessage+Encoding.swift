extension STUNMessage {
    /// The message on the wire. With `integrityKey`, MESSAGE-INTEGRITY is appended (HMAC-SHA1
    /// over the message with the length already covering it); with `fingerprint`, FINGERPRINT
    /// last. Existing MESSAGE-INTEGRITY / FINGERPRINT attributes are dropped and recomputed.
    /// `paddingByte` fills the 0–3 bytes after a value (any value is allowed; RFC 5769's vectors
    /// use spaces).
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = false, paddingByte: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + attributes.reduce(0) { $0 + 4 + ($1.value.count + 3) & ~3 } + 32)
        bytes.appendBigEndian(type.wireValue)
        bytes.appendBigEndian(UInt16(0))
        bytes.appendBigEndian(Self.magicCookie)
        bytes += transactionID.bytes
        for attribute in attributes where attribute.type != .messageIntegrity && attribute.type != .fingerprint {
            bytes.appendBigEndian(attribute.type.rawValue)
            bytes.appendBigEndian(UInt16(truncatingIfNeeded: attribute.value.count))
            bytes += attribute.value
            bytes += [UInt8](repeating: paddingByte, count: (4 - attribute.value.count % 4) % 4)
        }
        if let integrityKey {
            bytes.replaceBigEndianUInt16(at: 2, with: UInt16(truncatingIfNeeded: bytes.count + 24 - Self.headerSize))
            let code = HMACSHA1.authenticationCode(key: integrityKey, message: bytes)
            bytes.appendBigEndian(STUNAttributeType.messageIntegrity.rawValue)
            bytes.appendBigEndian(UInt16(20))
            bytes += code
        }
        if fingerprint {
            bytes.replaceBigEndianUInt16(at: 2, with: UInt16(truncatingIfNeeded: bytes.count + 8 - Self.headerSize))
            let crc = CRC32.checksum(bytes) ^ Self.fingerprintXOR
            bytes.appendBigEndian(STUNAttributeType.fingerprint.rawValue)
            bytes.appendBigEndian(UInt16(4))
            bytes.appendBigEndian(crc)
        }
        bytes.replaceBigEndianUInt16(at: 2, with: UInt16(truncatingIfNeeded: bytes.count - Self.headerSize))
        return bytes
    }
}
