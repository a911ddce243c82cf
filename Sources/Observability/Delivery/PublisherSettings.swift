/// How a publisher reports on itself.
public struct PublisherSettings: Sendable, Hashable {
    /// Send a sender-stats message to the subscribers once per interval (default `false`), so
    /// they can tell their own network's problems from the publisher's.
    public var senderStatsTrack: Bool

    /// Creates settings.
    public init(senderStatsTrack: Bool = false) {
        self.senderStatsTrack = senderStatsTrack
    }
}
