/// Why a subscriber's video was switched off or on (docs/spec/sessions.md §3).
public enum CallVideoChangeReason: String, Sendable, Hashable, CaseIterable {
    /// Audio fallback: the network cannot carry even the lowest layer (or, on
    /// ``CallSubscriberEvent/videoEnabled(_:)``, carries video again).
    case qualityChanged
    /// The app set ``CallSubscriber/subscribeToVideo``.
    case subscriberPropertyChanged
    /// The publisher stopped or started sending video.
    case publisherPropertyChanged
}
