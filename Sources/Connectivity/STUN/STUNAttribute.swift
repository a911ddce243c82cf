/// A STUN attribute type (RFC 8489 §18.3, TURN's in RFC 8656 §18).
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit type number.
    public let rawValue: UInt16
    /// Creates a type from its number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// MAPPED-ADDRESS (0x0001), the pre-RFC 5389 form.
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    /// USERNAME (0x0006).
    public static let username = STUNAttributeType(rawValue: 0x0006)
    /// MESSAGE-INTEGRITY (0x0008): HMAC-SHA1 of the message up to it.
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    /// ERROR-CODE (0x0009).
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    /// UNKNOWN-ATTRIBUTES (0x000A).
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    /// LIFETIME (0x000D), seconds, TURN.
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    /// XOR-PEER-ADDRESS (0x0012), TURN.
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    /// REALM (0x0014).
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    /// NONCE (0x0015).
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    /// XOR-RELAYED-ADDRESS (0x0016), TURN.
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    /// REQUESTED-TRANSPORT (0x0019), TURN.
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)
    /// XOR-MAPPED-ADDRESS (0x0020).
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// SOFTWARE (0x8022).
    public static let software = STUNAttributeType(rawValue: 0x8022)
    /// FINGERPRINT (0x8028): CRC-32 of the message up to it, XOR 0x5354554E.
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)

    /// Types below 0x8000 must be understood by the receiver (RFC 8489 §14).
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// The attribute's name, or its number in hex.
    public var description: String {
        switch self {
        case .mappedAddress: "MAPPED-ADDRESS"
        case .username: "USERNAME"
        case .messageIntegrity: "MESSAGE-INTEGRITY"
        case .errorCode: "ERROR-CODE"
        case .unknownAttributes: "UNKNOWN-ATTRIBUTES"
        case .lifetime: "LIFETIME"
        case .xorPeerAddress: "XOR-PEER-ADDRESS"
        case .realm: "REALM"
        case .nonce: "NONCE"
        case .xorRelayedAddress: "XOR-RELAYED-ADDRESS"
        case .requestedTransport: "REQUESTED-TRANSPORT"
        case .xorMappedAddress: "XOR-MAPPED-ADDRESS"
        case .software: "SOFTWARE"
        case .fingerprint: "FINGERPRINT"
        default: "attribute 0x" + String(rawValue, radix: 16)
        }
    }
}

/// One attribute as it travels: its type and its value without padding. Every attribute is kept,
/// known or not; the typed readers are in `STUNAttribute+Values.swift`.
public struct STUNAttribute: Hashable, Sendable {
    /// The type.
    public var type: STUNAttributeType
    /// The value, unpadded.
    public var value: [UInt8]

    /// Creates an attribute.
    public init(type: STUNAttributeType, value: [UInt8]) {
        self.type = type
        self.value = value
    }
}
