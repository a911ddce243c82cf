/// One delegate callback the engine produced, with where it came from.
public struct StatsCallback: Sendable, Hashable {
    /// Unix ms of the sample that produced it.
    public var time: Double
    /// The endpoint label.
    public var peer: String
    /// The peer connection label.
    public var peerConnection: String
    /// The subscriber stream id; empty for publisher callbacks.
    public var stream: String
    /// The callback and its payload.
    public var event: StatsEvent
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
}
