/// The 96-bit transaction id that pairs a response with its request (RFC 8489 §6).
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Its 12 bytes.
    public let bytes: [UInt8]

    /// The id with these bytes; `nil` unless there are exactly 12.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        self.bytes = Array(bytes)
    }

    /// A new id from `generator` (a cryptographically random one by default, as the RFC asks).
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> STUNTransactionID {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        for _ in 0..<12 { bytes.append(UInt8.random(in: .min ... .max, using: &generator)) }
        return STUNTransactionID(bytes: bytes)!
    }

    /// A new id from the system's random number generator.
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Hex, as packet dumps show it.
    public var description: String { bytes.hexString }
}

extension Array where Element == UInt8 {
    /// Lower-case hex without separators.
    var hexString: String {
        let digits = [Character]("0123456789abcdef")
        var text = ""
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
