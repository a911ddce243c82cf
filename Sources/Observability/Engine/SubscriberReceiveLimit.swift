/// Why a subscriber receives less video than its preferences ask for (set by the SDK's layer policy).
public enum SubscriberReceiveLimit: String, Sendable, Hashable {
    /// Nothing limits it.
    case none
    /// Its own downlink cannot carry more: the degradation source stays local / bandwidth.
    case downlink
    /// The publisher offers no more (its uplink dropped its top layers): remote / bandwidth.
    case publisher
    /// The SDK paused the video for audio fallback: not a freeze, not a network event.
    case paused
}
