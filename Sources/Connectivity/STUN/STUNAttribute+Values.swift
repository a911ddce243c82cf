/// An ERROR-CODE value: a code 300–699 and a reason phrase (RFC 8489 §14.8).
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code, e.g. 401 (Unauthorized), 438 (Stale Nonce).
    public let code: Int
    /// The server's reason phrase.
    public let reason: String

    /// 401: credentials missing or wrong.
    public static let unauthorized = 401
    /// 438: the nonce expired; retry with the new one.
    public static let staleNonce = 438

    /// Creates a value.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Reads an ERROR-CODE value.
    public init(value: [UInt8]) throws(STUNDecodingError) {
        guard value.count >= 4 else { throw STUNDecodingError(.badAttributeValue, offset: 0, detail: "ERROR-CODE of \(value.count) bytes") }
        let errorClass = Int(value[2] & 0x07), number = Int(value[3])
        guard (3...6).contains(errorClass), number < 100 else {
            throw STUNDecodingError(.badAttributeValue, offset: 2, detail: "ERROR-CODE class \(errorClass) number \(number)")
        }
        self.init(code: errorClass * 100 + number, reason: String(decoding: value[4...], as: UTF8.self))
    }

    /// The attribute value.
    public var value: [UInt8] { [0, 0, UInt8((code / 100) & 0x07), UInt8(code % 100)] + Array(reason.utf8) }

    /// `401 Unauthorized`.
    public var description: String { "\(code) \(reason)" }
}

extension STUNAttribute {
    /// A UTF-8 text attribute (USERNAME, REALM, NONCE, SOFTWARE).
    public static func text(_ type: STUNAttributeType, _ text: String) -> STUNAttribute {
        STUNAttribute(type: type, value: Array(text.utf8))
    }

    /// LIFETIME in seconds (TURN; 0 frees the allocation).
    public static func lifetime(seconds: UInt32) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(seconds)
        return STUNAttribute(type: .lifetime, value: value)
    }

    /// REQUESTED-TRANSPORT: the IP protocol number of the relayed transport (17 = UDP, the
    /// only one RFC 8656 defines) and three reserved bytes.
    public static func requestedTransport(protocolNumber: UInt8 = 17) -> STUNAttribute {
        STUNAttribute(type: .requestedTransport, value: [protocolNumber, 0, 0, 0])
    }

    /// An XOR-…-ADDRESS attribute of `address` for the message with `transactionID`.
    public static func xorAddress(_ type: STUNAttributeType, _ address: STUNTransportAddress, transactionID: STUNTransactionID) -> STUNAttribute {
        STUNAttribute(type: type, value: address.xorValue(transactionID: transactionID))
    }
}

extension STUNMessage {
    /// A text attribute's value as UTF-8, when present.
    public func text(of attributeType: STUNAttributeType) -> String? {
        value(of: attributeType).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The ERROR-CODE of an error response.
    public func errorCode() throws(STUNDecodingError) -> STUNErrorCode? {
        guard let value = value(of: .errorCode) else { return nil }
        return try STUNErrorCode(value: value)
    }

    /// The XOR-MAPPED-ADDRESS of a Binding response (or MAPPED-ADDRESS from an old server).
    public func mappedAddress() throws(STUNDecodingError) -> STUNTransportAddress? {
        if let value = value(of: .xorMappedAddress) { return try STUNTransportAddress(xorValue: value, transactionID: transactionID) }
        if let value = value(of: .mappedAddress) { return try STUNTransportAddress(plainValue: value) }
        return nil
    }

    /// The XOR-RELAYED-ADDRESS of an Allocate response.
    public func relayedAddress() throws(STUNDecodingError) -> STUNTransportAddress? {
        guard let value = value(of: .xorRelayedAddress) else { return nil }
        return try STUNTransportAddress(xorValue: value, transactionID: transactionID)
    }

    /// LIFETIME in seconds.
    public func lifetimeSeconds() throws(STUNDecodingError) -> UInt32? {
        guard let value = value(of: .lifetime) else { return nil }
        guard value.count == 4 else { throw STUNDecodingError(.badAttributeValue, offset: 0, detail: "LIFETIME of \(value.count) bytes") }
        return value.bigEndianUInt32(at: 0)
    }
}
