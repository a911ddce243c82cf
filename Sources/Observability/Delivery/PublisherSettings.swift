/// How a publisher reports on itself.
public struct PublisherSettings: Sendable, Hashable {
    /// Send a sender-stats message to the subscribers once per interval (default `false`), so
    /// they can tell their own network's problems from the publisher's.
    public var senderStatsTrack: Bool
    /// Subscribers may drop this publisher's video and keep its audio when their network cannot
    /// carry even the lowest layer (default `true`); carried to them in the sender stats.
    public var audioFallbackEnabled: Bool

    /// Creates settings.
    public init(senderStatsTrack: Bool = false, audioFallbackEnabled: Bool = true) {
        self.senderStatsTrack = senderStatsTrack
        self.audioFallbackEnabled = audioFallbackEnabled
    }
}
