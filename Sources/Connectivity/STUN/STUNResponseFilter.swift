/// Why a received message was not taken as the response to our request.
public enum STUNDropReason: Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a well-formed STUN message.
    case malformed(STUNDecodingError.Kind)
    /// A well-formed message for another transaction.
    case wrongTransaction
    /// Our transaction id, but another method.
    case wrongMethod
    /// A request or indication where a response was expected.
    case notAResponse
    /// MESSAGE-INTEGRITY missing where it was required, or not matching the key.
    case badIntegrity
    /// A response whose attributes cannot be read (an address or error code that is not one).
    case unreadableAttribute

    /// A short name for logs and counts.
    public var description: String {
        switch self {
        case .malformed(let kind): "malformed (\(kind.rawValue))"
        case .wrongTransaction: "wrong transaction id"
        case .wrongMethod: "wrong method"
        case .notAResponse: "not a response"
        case .badIntegrity: "bad message integrity"
        case .unreadableAttribute: "unreadable attribute"
        }
    }
}

/// Picks the response to one request out of whatever arrives, never trusting the rest: each
/// rejected message is counted by reason and otherwise ignored (RFC 8489 §6.3).
///
/// With an `integrityKey`, a success response must carry a matching MESSAGE-INTEGRITY, and an
/// error response that carries one must match (a 401 carries none: it is how the server hands
/// out its realm and nonce).
public struct STUNResponseFilter: Sendable {
    /// The request's transaction id.
    public let transactionID: STUNTransactionID
    /// The request's method.
    public let method: STUNMethod
    /// The key responses must be signed with, if any.
    public let integrityKey: [UInt8]?
    /// Messages rejected so far, by reason.
    public private(set) var drops: [STUNDropReason: Int] = [:]

    /// Creates a filter for the request with this id and method.
    public init(transactionID: STUNTransactionID, method: STUNMethod, integrityKey: [UInt8]? = nil) {
        self.transactionID = transactionID
        self.method = method
        self.integrityKey = integrityKey
    }

    /// Messages rejected so far.
    public var droppedCount: Int { drops.values.reduce(0, +) }

    /// The response, if `bytes` is one we can trust; otherwise `nil`, counted in ``drops``.
    public mutating func accept(_ bytes: [UInt8]) -> STUNMessage? {
        let message: STUNMessage
        do {
            message = try STUNMessage(decoding: bytes)
        } catch {
            return drop(.malformed(error.kind))
        }
        guard message.transactionID == transactionID else { return drop(.wrongTransaction) }
        guard message.type.messageClass == .successResponse || message.type.messageClass == .errorResponse else { return drop(.notAResponse) }
        guard message.type.method == method else { return drop(.wrongMethod) }
        if let integrityKey {
            let signed = message.contains(.messageIntegrity)
            if message.type.messageClass == .successResponse || signed {
                guard message.hasValidMessageIntegrity(key: integrityKey) else { return drop(.badIntegrity) }
            }
        }
        do {
            _ = try message.errorCode()
            _ = try message.mappedAddress()
            _ = try message.relayedAddress()
            _ = try message.lifetimeSeconds()
        } catch {
            return drop(.unreadableAttribute)
        }
        return message
    }

    private mutating func drop(_ reason: STUNDropReason) -> STUNMessage? {
        drops[reason, default: 0] += 1
        return nil
    }
}
