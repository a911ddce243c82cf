/// A STUN method (RFC 8489 §18.2, TURN's in RFC 8656 §17).
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 12-bit method number.
    public let rawValue: UInt16
    /// Creates a method from its number (only the low 12 bits are kept).
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    /// Binding (0x001): asks the server for the address it saw.
    public static let binding = STUNMethod(rawValue: 0x001)
    /// TURN Allocate (0x003): asks for a relayed transport address.
    public static let allocate = STUNMethod(rawValue: 0x003)
    /// TURN Refresh (0x004): extends or (LIFETIME 0) frees an allocation.
    public static let refresh = STUNMethod(rawValue: 0x004)

    /// The method's name, or its number in hex.
    public var description: String {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        default: "method 0x" + String(rawValue, radix: 16)
        }
    }
}

/// The class of a STUN message: request, indication, success or error response.
public enum STUNMessageClass: UInt8, Hashable, Sendable, CaseIterable {
    /// A request (C1 C0 = 00).
    case request = 0
    /// An indication (01): no response expected.
    case indication = 1
    /// A success response (10).
    case successResponse = 2
    /// An error response (11), carrying ERROR-CODE.
    case errorResponse = 3
}

/// The 14-bit message type: a method and a class interleaved (RFC 8489 §5).
public struct STUNMessageType: Hashable, Sendable {
    /// The method.
    public var method: STUNMethod
    /// The class.
    public var messageClass: STUNMessageClass

    /// Creates a type from its parts.
    public init(method: STUNMethod, messageClass: STUNMessageClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Splits the wire value (the two top bits must already be known to be zero).
    public init(wireValue: UInt16) {
        let method = (wireValue & 0x000F) | ((wireValue & 0x00E0) >> 1) | ((wireValue & 0x3E00) >> 2)
        let classBits = ((wireValue & 0x0010) >> 4) | ((wireValue & 0x0100) >> 7)
        self.method = STUNMethod(rawValue: method)
        self.messageClass = STUNMessageClass(rawValue: UInt8(classBits)) ?? .request
    }

    /// The value on the wire: M11–M7, C1, M6–M4, C0, M3–M0.
    public var wireValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return ((m & 0x0F80) << 2) | ((m & 0x0070) << 1) | (m & 0x000F) | ((c & 0b10) << 7) | ((c & 0b01) << 4)
    }
}
