/// One delegate callback the engine produced, with where it came from.
public struct StatsCallback: Sendable, Hashable {
    /// Unix ms of the sample that produced it.
    public var time: Double
    /// The endpoint whose report produced it.
    public var endpoint: EndpointID
    /// The peer connection whose report produced it.
    public var peerConnection: PeerConnectionID
    /// The subscribed stream; `nil` for publisher callbacks.
    public var stream: StreamID?
    /// The remote publisher of the subscribed stream; `nil` for publisher callbacks.
    public var publisher: PublisherID?
    /// The callback and its payload.
    public var event: StatsEvent

    /// Creates a callback.
    public init(time: Double, endpoint: EndpointID, peerConnection: PeerConnectionID, stream: StreamID? = nil, publisher: PublisherID? = nil, event: StatsEvent) {
        self.time = time
        self.endpoint = endpoint
        self.peerConnection = peerConnection
        self.stream = stream
        self.publisher = publisher
        self.event = event
    }
}

/// The callbacks of `PublisherNetworkStatsDelegate` and `SubscriberNetworkStatsDelegate`.
public enum StatsEvent: Sendable, Hashable {
    case publisherVideoNetworkStatsUpdated([PublisherVideoNetworkStats])
    case publisherAudioNetworkStatsUpdated([PublisherAudioNetworkStats])
    case publisherMediaLinkStatsUpdated([PublisherMediaLinkStats])
    case subscriberVideoNetworkStatsUpdated(SubscriberVideoNetworkStats)
    case subscriberAudioNetworkStatsUpdated(SubscriberAudioNetworkStats)
    case subscriberMediaLinkStatsUpdated(SubscriberMediaLinkStats)
    case publisherNetworkConditionChanged(PublisherMediaLinkStats, NetworkConditionReason)
    case publisherVideoQualityChanged(PublisherVideoNetworkStats, PublisherVideoEventReason)
    case subscriberNetworkConditionChanged(SubscriberMediaLinkStats, NetworkConditionReason)
    case subscriberVideoQualityChanged(SubscriberVideoNetworkStats, SubscriberVideoEventReason)
    /// The remote participant behind a subscribed stream changed connection-quality level.
    case participantConnectionQualityChanged(ConnectionQuality)

    /// The stable callback name of the `callscope replay --format ndjson` interface.
    public var callbackName: String {
        switch self {
        case .publisherVideoNetworkStatsUpdated: "publisher.videoNetworkStatsUpdated"
        case .publisherAudioNetworkStatsUpdated: "publisher.audioNetworkStatsUpdated"
        case .publisherMediaLinkStatsUpdated: "publisher.mediaLinkStatsUpdated"
        case .subscriberVideoNetworkStatsUpdated: "subscriber.videoNetworkStatsUpdated"
        case .subscriberAudioNetworkStatsUpdated: "subscriber.audioNetworkStatsUpdated"
        case .subscriberMediaLinkStatsUpdated: "subscriber.mediaLinkStatsUpdated"
        case .publisherNetworkConditionChanged: "publisher.networkConditionChanged"
        case .publisherVideoQualityChanged: "publisher.videoQualityChanged"
        case .subscriberNetworkConditionChanged: "subscriber.networkConditionChanged"
        case .subscriberVideoQualityChanged: "subscriber.videoQualityChanged"
        case .participantConnectionQualityChanged: "participant.connectionQualityChanged"
        }
    }

    /// Every callback name, in the order of the ndjson documentation.
    public static let callbackNames = [
        "publisher.videoNetworkStatsUpdated", "publisher.audioNetworkStatsUpdated", "publisher.mediaLinkStatsUpdated",
        "subscriber.videoNetworkStatsUpdated", "subscriber.audioNetworkStatsUpdated", "subscriber.mediaLinkStatsUpdated",
        "publisher.networkConditionChanged", "publisher.videoQualityChanged", "subscriber.networkConditionChanged",
        "subscriber.videoQualityChanged", "participant.connectionQualityChanged",
    ]
}
