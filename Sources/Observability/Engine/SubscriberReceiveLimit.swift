/// Why a subscriber receives less video than its preferences ask for (set by the SDK's layer policy).
public enum SubscriberReceiveLimit: String, Sendable, Hashable {
    /// Nothing limits it.
    case none
    /// Its own downlink cannot carry more: the degradation source stays local / bandwidth.
    case downlink
    /// The publisher offers no more (its uplink dropped its top layers): remote / bandwidth.
    case publisher
    /// The SDK paused the video for audio fallback (its downlink cannot carry even the lowest
    /// layer): not a freeze, and the degradation source stays local / bandwidth, as under
    /// ``downlink``.
    case paused
    /// The video is off by the app's or the publisher's choice (`subscribeToVideo = false`,
    /// the publisher's camera off): not a freeze, and not the network's doing.
    case videoOff
}
