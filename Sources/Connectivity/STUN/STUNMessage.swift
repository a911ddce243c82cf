/// A STUN message (RFC 8489): type, transaction id and attributes in wire order.
///
/// Decode with ``init(decoding:)`` (every check of RFC 8489 §6.3 on framing, FINGERPRINT when
/// present), check MESSAGE-INTEGRITY with ``hasValidMessageIntegrity(key:)``, encode with
/// ``encoded(integrityKey:fingerprint:paddingByte:)``.
public struct STUNMessage: Hashable, Sendable {
    /// The magic cookie every RFC 5389/8489 message carries after the length.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The XOR value FINGERPRINT applies to the CRC-32 (ASCII "STUN").
    public static let fingerprintXOR: UInt32 = 0x5354_554E
    /// Header bytes.
    public static let headerSize = 20

    /// The method and class.
    public var type: STUNMessageType
    /// The transaction id.
    public var transactionID: STUNTransactionID
    /// The attributes, in order. A decoded message holds every attribute up to and including
    /// MESSAGE-INTEGRITY, then FINGERPRINT if present (others after MESSAGE-INTEGRITY are
    /// ignored, as RFC 8489 §14.5 requires).
    public var attributes: [STUNAttribute]

    /// The bytes this message was decoded from, for MESSAGE-INTEGRITY; `nil` when built here.
    var decodedBytes: [UInt8]?
    /// Offset of the MESSAGE-INTEGRITY attribute header in `decodedBytes`.
    var integrityOffset: Int?

    /// Creates a message.
    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// The value of the first attribute of this type.
    public func value(of attributeType: STUNAttributeType) -> [UInt8]? {
        attributes.first { $0.type == attributeType }?.value
    }

    /// Whether an attribute of this type is present.
    public func contains(_ attributeType: STUNAttributeType) -> Bool {
        attributes.contains { $0.type == attributeType }
    }
}
