/// How a ``CallSession`` behaves.
public struct CallSessionConfiguration: Hashable, Sendable {
    /// How often the SDK samples publisher and subscriber stats.
    public var statsInterval: Duration
    /// How long a subscriber may stay disconnected before its stream is destroyed.
    public var reconnectWindow: Duration
    /// Whether subscribing to our own stream is allowed (a loopback test, say).
    public var allowsSubscribingToOwnStream: Bool
    /// STUN/TURN servers for every peer connection.
    public var peerConnection: PeerConnectionConfiguration

    /// Creates a configuration: 1 s stats, a 30 s reconnect window.
    public init(statsInterval: Duration = .seconds(1), reconnectWindow: Duration = .seconds(30),
                allowsSubscribingToOwnStream: Bool = false, peerConnection: PeerConnectionConfiguration = .init()) {
        self.statsInterval = statsInterval
        self.reconnectWindow = reconnectWindow
        self.allowsSubscribingToOwnStream = allowsSubscribingToOwnStream
        self.peerConnection = peerConnection
    }
}
