/// An IP address and port as STUN carries them (MAPPED/XOR-MAPPED/XOR-RELAYED-ADDRESS).
public struct STUNTransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: UInt8, Hashable, Sendable {
        /// IPv4: 4 address bytes.
        case ipv4 = 0x01
        /// IPv6: 16 address bytes.
        case ipv6 = 0x02
    }

    /// The family.
    public let family: Family
    /// The address bytes, network order (4 for IPv4, 16 for IPv6).
    public let address: [UInt8]
    /// The port.
    public let port: UInt16

    /// An address; `nil` when the byte count does not fit the family.
    public init?(family: Family, address: [UInt8], port: UInt16) {
        guard address.count == (family == .ipv4 ? 4 : 16) else { return nil }
        self.family = family
        self.address = address
        self.port = port
    }

    /// `192.0.2.1:32853` or `[2001:db8::1]:443` (IPv6 in full, lower-case, zeros not compressed).
    public var description: String {
        switch family {
        case .ipv4:
            return address.map(String.init).joined(separator: ".") + ":\(port)"
        case .ipv6:
            let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
            return "[" + groups.joined(separator: ":") + "]:\(port)"
        }
    }

    // MARK: - Wire form

    /// Reads a MAPPED-ADDRESS value (not XORed).
    public init(plainValue value: [UInt8]) throws(STUNDecodingError) {
        try self.init(value: value, mask: nil)
    }

    /// Reads an XOR-MAPPED-ADDRESS / XOR-RELAYED-ADDRESS / XOR-PEER-ADDRESS value: the port
    /// XORed with the cookie's top 16 bits, the address with the cookie (and for IPv6 the
    /// transaction id) (RFC 8489 §14.2).
    public init(xorValue value: [UInt8], transactionID: STUNTransactionID) throws(STUNDecodingError) {
        try self.init(value: value, mask: Self.xorMask(transactionID))
    }

    /// The value of an XOR-…-ADDRESS attribute for this address.
    public func xorValue(transactionID: STUNTransactionID) -> [UInt8] {
        let mask = Self.xorMask(transactionID)
        var value: [UInt8] = [0, family.rawValue]
        value.appendBigEndian(port ^ UInt16(STUNMessage.magicCookie >> 16))
        for (index, byte) in address.enumerated() { value.append(byte ^ mask[index]) }
        return value
    }

    private init(value: [UInt8], mask: [UInt8]?) throws(STUNDecodingError) {
        guard value.count >= 4, let family = Family(rawValue: value[1]) else {
            throw STUNDecodingError(.badAttributeValue, offset: 0, detail: "address value of \(value.count) bytes, family \(value.count > 1 ? String(value[1]) : "missing")")
        }
        let size = family == .ipv4 ? 4 : 16
        guard value.count == 4 + size else {
            throw STUNDecodingError(.badAttributeValue, offset: 0, detail: "\(family) address value of \(value.count) bytes, not \(4 + size)")
        }
        var port = value.bigEndianUInt16(at: 2)
        var address = Array(value[4...])
        if let mask {
            port ^= UInt16(STUNMessage.magicCookie >> 16)
            for index in address.indices { address[index] ^= mask[index] }
        }
        self.init(family: family, address: address, port: port)!
    }

    /// The cookie followed by the transaction id: the XOR key of the address bytes.
    private static func xorMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        var mask: [UInt8] = []
        mask.appendBigEndian(STUNMessage.magicCookie)
        return mask + transactionID.bytes
    }
}
