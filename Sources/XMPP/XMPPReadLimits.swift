/// Bounds on one incoming message (RFC 7395: one WebSocket message holds one element), so a
/// hostile server cannot exhaust memory or time.
public struct XMPPReadLimits: Hashable, Sendable {
    /// Bytes in one message (Prosody's own default stanza limit is 256 KiB for clients).
    public var maximumBytes: Int
    /// Nesting depth of elements.
    public var maximumDepth: Int
    /// Elements in one message, all depths.
    public var maximumElements: Int
    /// Attributes on one element.
    public var maximumAttributes: Int

    /// Creates limits.
    public init(maximumBytes: Int = 256 << 10, maximumDepth: Int = 32, maximumElements: Int = 10_000, maximumAttributes: Int = 64) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumElements = maximumElements
        self.maximumAttributes = maximumAttributes
    }
}
