/// When to ask the XMPP server again for TURN credentials (XEP-0215). Prosody's
/// `mod_turn_external` hands out coturn's `use-auth-secret` credentials, whose username is the
/// expiry in Unix seconds, optionally followed by `:` and a user id (`1767225600` or
/// `1767225600:alice`). They are asked for again at half their remaining lifetime, so a
/// failed request still leaves time for the next try (half of what is left again).
public struct TURNCredentialLifetime: Hashable, Sendable {
    /// The expiry, in Unix seconds.
    public let expiry: Int64

    /// The lifetime of `username`'s credentials, or `nil` when the username carries no expiry
    /// (a static TURN user: nothing to refresh).
    public init?(username: String) {
        let digits = username.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let expiry = Int64(digits) else { return nil }
        self.expiry = expiry
    }

    /// How long to wait, at `now` (Unix seconds), before asking again: half the time left, but
    /// at least `minimumDelay` (so expired or nearly expired credentials are not asked for in a
    /// busy loop when the server keeps handing out the same ones).
    public func refreshDelay(now: Double, minimumDelay: Duration = .seconds(5)) -> Duration {
        let remaining = Double(expiry) - now
        let half = Duration.milliseconds(Int64((max(remaining, 0) * 500).rounded(.down)))
        return max(half, minimumDelay)
    }
}
