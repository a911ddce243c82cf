/// Why a publisher's `videoQualityChanged` fired.
public enum PublisherVideoEventReason: String, Sendable, Hashable, CaseIterable {
    /// A layer's `qualityLimitationReason` changed.
    case qualityLimitationChanged
    /// A layer was switched on or off.
    case layersChanged
    /// The top layer's resolution changed.
    case resolutionChanged
    /// A layer's codec changed.
    case codecChanged
}

/// Why a subscriber's video changed: the one reason of its `videoQualityChanged` and of its
/// `videoDisabled` / `videoEnabled` (the Calls module's `CallSubscriberEvent`), as the
/// reference SDK has one (`OTSubscriberVideoEventReason`; docs/spec/sessions.md §3,
/// docs/spec/observability.md §7).
public enum SubscriberVideoEventReason: String, Sendable, Hashable, CaseIterable {
    /// The video's quality changed. `videoQualityChanged`: a pause of at least 5 s began or
    /// ended, or the decoded resolution changed (a layer switch). `videoDisabled` /
    /// `videoEnabled`: audio fallback, the network cannot carry even the lowest layer (or
    /// carries video again).
    case qualityChanged
    /// The decoder's codec changed (`videoQualityChanged` only; beyond the reference SDK).
    case codecChanged
    /// The publisher stopped or started sending video.
    case publisherPropertyChanged
    /// The app set the subscriber's `subscribeToVideo`.
    case subscriberPropertyChanged
}

/// A participant's connection quality, from the E-model (docs/spec/observability.md §8).
public enum ConnectionQuality: String, Sendable, Hashable, CaseIterable, Comparable {
    case unknown, bad, poor, fair, good, excellent

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// The position in `allCases`, as a switch: `allCases.firstIndex` builds an array per call.
    private var rank: Int {
        switch self {
        case .unknown: 0
        case .bad: 1
        case .poor: 2
        case .fair: 3
        case .good: 4
        case .excellent: 5
        }
    }
}
