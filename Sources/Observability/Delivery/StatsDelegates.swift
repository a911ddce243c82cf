/// Receives a publisher's per-interval statistics. Every method has an empty default.
///
/// Routed sessions deliver arrays of one element; relayed sessions one element per subscriber.
public protocol PublisherNetworkStatsDelegate: AnyObject, Sendable {
    /// Video statistics, one element per link.
    func publisher(_ monitor: PublisherStatsMonitor, videoNetworkStatsUpdated stats: [PublisherVideoNetworkStats])
    /// Audio statistics, one element per link.
    func publisher(_ monitor: PublisherStatsMonitor, audioNetworkStatsUpdated stats: [PublisherAudioNetworkStats])
    /// Transport statistics, one element per link.
    func publisher(_ monitor: PublisherStatsMonitor, mediaLinkStatsUpdated stats: [PublisherMediaLinkStats])
    /// A layer's limitation, the set of layers, the top resolution or the codec changed.
    func publisher(_ monitor: PublisherStatsMonitor, videoQualityChanged stats: PublisherVideoNetworkStats, reason: PublisherVideoEventReason)
    /// The uplink's condition or its reason changed.
    func publisher(_ monitor: PublisherStatsMonitor, networkConditionChanged mediaLinkStats: PublisherMediaLinkStats, reason: NetworkConditionReason)
}

extension PublisherNetworkStatsDelegate {
    public func publisher(_ monitor: PublisherStatsMonitor, videoNetworkStatsUpdated stats: [PublisherVideoNetworkStats]) {}
    public func publisher(_ monitor: PublisherStatsMonitor, audioNetworkStatsUpdated stats: [PublisherAudioNetworkStats]) {}
    public func publisher(_ monitor: PublisherStatsMonitor, mediaLinkStatsUpdated stats: [PublisherMediaLinkStats]) {}
    public func publisher(_ monitor: PublisherStatsMonitor, videoQualityChanged stats: PublisherVideoNetworkStats, reason: PublisherVideoEventReason) {}
    public func publisher(_ monitor: PublisherStatsMonitor, networkConditionChanged mediaLinkStats: PublisherMediaLinkStats, reason: NetworkConditionReason) {}
}

/// Receives a subscriber's per-interval statistics. Every method has an empty default.
public protocol SubscriberNetworkStatsDelegate: AnyObject, Sendable {
    /// Video statistics.
    func subscriber(_ monitor: SubscriberStatsMonitor, videoNetworkStatsUpdated stats: SubscriberVideoNetworkStats)
    /// Audio statistics.
    func subscriber(_ monitor: SubscriberStatsMonitor, audioNetworkStatsUpdated stats: SubscriberAudioNetworkStats)
    /// Transport statistics, with the remote publisher's uplink and the degradation source.
    func subscriber(_ monitor: SubscriberStatsMonitor, mediaLinkStatsUpdated stats: SubscriberMediaLinkStats)
    /// A pause of 5 s or more began or ended, the decoded resolution changed, or the codec changed.
    func subscriber(_ monitor: SubscriberStatsMonitor, videoQualityChanged stats: SubscriberVideoNetworkStats, reason: SubscriberVideoEventReason)
    /// This subscriber's downlink or the remote publisher's uplink changed condition.
    func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged mediaLinkStats: SubscriberMediaLinkStats, reason: NetworkConditionReason)
    /// The same change in the reference SDK's other form: the sample's video and audio stats,
    /// the video stats carrying the media link (``SubscriberVideoNetworkStats/transport``,
    /// ``SubscriberVideoNetworkStats/remotePublisherTransport``,
    /// ``SubscriberVideoNetworkStats/networkDegradationSource``). Called right after the
    /// media-link form, once the subscriber has had both video and audio stats (a stream
    /// without one of them gets the media-link form only).
    func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged videoStats: SubscriberVideoNetworkStats, audioStats: SubscriberAudioNetworkStats,
                    reason: NetworkConditionReason)
    /// The remote participant's connection quality changed level.
    func subscriber(_ monitor: SubscriberStatsMonitor, didUpdateConnectionQuality quality: ConnectionQuality)
}

extension SubscriberNetworkStatsDelegate {
    public func subscriber(_ monitor: SubscriberStatsMonitor, videoNetworkStatsUpdated stats: SubscriberVideoNetworkStats) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, audioNetworkStatsUpdated stats: SubscriberAudioNetworkStats) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, mediaLinkStatsUpdated stats: SubscriberMediaLinkStats) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, videoQualityChanged stats: SubscriberVideoNetworkStats, reason: SubscriberVideoEventReason) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged mediaLinkStats: SubscriberMediaLinkStats, reason: NetworkConditionReason) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, networkConditionChanged videoStats: SubscriberVideoNetworkStats, audioStats: SubscriberAudioNetworkStats,
                           reason: NetworkConditionReason) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, didUpdateConnectionQuality quality: ConnectionQuality) {}
}

/// One peer connection's raw report, as the browser's `RTCStatsReport` JSON array.
public struct PublisherRtcStats: Sendable, Hashable {
    /// Relayed: the subscriber connection; empty when routed.
    public var connectionId: String
    /// The unprocessed report as a JSON array.
    public var jsonArrayOfReports: String
}

/// Receives the raw reports asked for with `getRtcStatsReport()`.
public protocol RtcStatsReportDelegate: AnyObject, Sendable {
    /// A publisher's raw reports, one per peer connection.
    func publisher(_ monitor: PublisherStatsMonitor, rtcStatsReport stats: [PublisherRtcStats])
    /// A subscriber's raw report, as a JSON array.
    func subscriber(_ monitor: SubscriberStatsMonitor, rtcStatsReport jsonArrayOfReports: String)
}

extension RtcStatsReportDelegate {
    public func publisher(_ monitor: PublisherStatsMonitor, rtcStatsReport stats: [PublisherRtcStats]) {}
    public func subscriber(_ monitor: SubscriberStatsMonitor, rtcStatsReport jsonArrayOfReports: String) {}
}
