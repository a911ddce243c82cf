/// What a subscriber's `networkConditionChanged(videoStats:audioStats:reason:)` carries, kept
/// from the callbacks of each report: the reference SDK's other form of the condition change
/// (docs/spec/observability.md §1) gives the sample's video and audio stats, the video stats
/// carrying the media link (`transport`, `remotePublisherTransport`,
/// `networkDegradationSource`).
struct ConditionChangeStats: Sendable {
    private var video: SubscriberVideoNetworkStats?
    private var audio: SubscriberAudioNetworkStats?

    /// Takes one callback, in the order of a report's list (video, audio, media link, then the
    /// condition change); returns the stats of the other form when it is a condition change
    /// and the subscriber has had both video and audio stats.
    mutating func note(_ event: StatsEvent) -> (video: SubscriberVideoNetworkStats, audio: SubscriberAudioNetworkStats, reason: NetworkConditionReason)? {
        switch event {
        case .subscriberVideoNetworkStatsUpdated(let stats): video = stats
        case .subscriberAudioNetworkStatsUpdated(let stats): audio = stats
        case .subscriberNetworkConditionChanged(let mediaLink, let reason):
            guard var video, let audio else { return nil }
            video.mediaLink = mediaLink
            return (video, audio, reason)
        default: break
        }
        return nil
    }
}
