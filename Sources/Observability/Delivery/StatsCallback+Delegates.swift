/// The delegate a monitor calls, with the monitor it passes.
enum StatsDelegateTarget {
    case publisher(any PublisherNetworkStatsDelegate, PublisherStatsMonitor)
    case subscriber(any SubscriberNetworkStatsDelegate, SubscriberStatsMonitor)
}

extension StatsCallback {
    /// Calls the delegate method this callback stands for; a callback of the other side is
    /// not the target's (monitors only produce their own).
    func deliver(to target: StatsDelegateTarget) {
        switch (event, target) {
        case (.publisherVideoNetworkStatsUpdated(let stats), .publisher(let delegate, let monitor)):
            delegate.publisher(monitor, videoNetworkStatsUpdated: stats)
        case (.publisherAudioNetworkStatsUpdated(let stats), .publisher(let delegate, let monitor)):
            delegate.publisher(monitor, audioNetworkStatsUpdated: stats)
        case (.publisherMediaLinkStatsUpdated(let stats), .publisher(let delegate, let monitor)):
            delegate.publisher(monitor, mediaLinkStatsUpdated: stats)
        case (.publisherVideoQualityChanged(let stats, let reason), .publisher(let delegate, let monitor)):
            delegate.publisher(monitor, videoQualityChanged: stats, reason: reason)
        case (.publisherNetworkConditionChanged(let stats, let reason), .publisher(let delegate, let monitor)):
            delegate.publisher(monitor, networkConditionChanged: stats, reason: reason)
        case (.subscriberVideoNetworkStatsUpdated(let stats), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, videoNetworkStatsUpdated: stats)
        case (.subscriberAudioNetworkStatsUpdated(let stats), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, audioNetworkStatsUpdated: stats)
        case (.subscriberMediaLinkStatsUpdated(let stats), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, mediaLinkStatsUpdated: stats)
        case (.subscriberVideoQualityChanged(let stats, let reason), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, videoQualityChanged: stats, reason: reason)
        case (.subscriberNetworkConditionChanged(let stats, let reason), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, networkConditionChanged: stats, reason: reason)
        case (.participantConnectionQualityChanged(let quality), .subscriber(let delegate, let monitor)):
            delegate.subscriber(monitor, didUpdateConnectionQuality: quality)
        default:
            break
        }
    }
}
