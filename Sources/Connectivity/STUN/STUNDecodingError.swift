/// Why bytes are not an acceptable STUN message. A struct over a private code, so the set can
/// grow; each error says where the problem is.
public struct STUNDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is; use it to count drops by reason.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Fewer than the 20 header bytes.
        case truncatedHeader
        /// The two top bits of the type are not zero (not STUN; RTP, DTLS, ...).
        case notSTUN
        /// The magic cookie is not 0x2112A442.
        case badMagicCookie
        /// The length field is not a multiple of 4 or disagrees with the bytes received.
        case badLength
        /// An attribute's header or value runs past the end of the message.
        case truncatedAttribute
        /// MESSAGE-INTEGRITY or FINGERPRINT has the wrong size, or FINGERPRINT is not last.
        case malformedAttribute
        /// FINGERPRINT does not match the message.
        case badFingerprint
        /// An attribute value cannot be read as its type says (address family, error code, ...).
        case badAttributeValue
    }

    /// The kind.
    public let kind: Kind
    /// Byte offset where the problem was found.
    public let offset: Int
    /// What was found there.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, offset: Int, detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    /// One line for a log.
    public var description: String { "STUN \(kind.rawValue) at byte \(offset): \(detail)" }
}
