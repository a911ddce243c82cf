/// Long-term credentials (RFC 8489 §9.2) as TURN servers use them: a username and password,
/// plus the realm and nonce the server hands out in its 401.
public struct STUNCredentials: Hashable, Sendable {
    /// The username.
    public var username: String
    /// The password.
    public var password: String

    /// Creates credentials.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The MESSAGE-INTEGRITY key for `realm`: MD5(username ":" realm ":" password). The
    /// strings are used as given (no SASLprep/OpaqueString: ASCII credentials are unaffected).
    public func longTermKey(realm: String) -> [UInt8] {
        MD5.digest(Array("\(username):\(realm):\(password)".utf8))
    }
}
