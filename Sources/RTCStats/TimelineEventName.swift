/// The event names of a `webrtc-stats-recording`: the one list, read by the replay
/// (`CallScopeReplay`) and written by ``RecordingWriter`` (see ``RecordingReader``, and docs/spec/recording-format.md for the format).
public enum TimelineEventName {
    /// A sender-stats message the endpoint received; `data` is the message.
    public static let senderStats = "sender-stats"
    /// Which remote publisher is behind which `mid` of a subscriber connection (the router's
    /// stream list): `data.streams[]` with `mid`, `type` and `publisher`.
    public static let subscriberStreams = "subscriber-streams"
    /// The SDK's layer policy asked the router for another layer: `data.substream`,
    /// `data.temporal`, and `data.limit` (an `Observability.SubscriberReceiveLimit` raw value:
    /// why the stream receives less than its preferences ask for).
    public static let subscriberLayerChanged = "subscriber.layerChanged"
    /// The SDK switched the stream's video off: `data.reason` (`qualityChanged`,
    /// `publisherPropertyChanged`, `subscriberPropertyChanged`).
    public static let subscriberVideoDisabled = "subscriber.videoDisabled"
    /// The video is back on (frames decoded again): `data.reason`.
    public static let subscriberVideoEnabled = "subscriber.videoEnabled"
    /// The video is about to be switched off for audio fallback.
    public static let subscriberVideoDisableWarning = "subscriber.videoDisableWarning"

    /// The receive limit the SDK's layer policy gave the stream's stats monitor, when it
    /// decided (the line's time is the report it decided on): `data.limit`, `data.stream`. The
    /// policy's events above come later (`layerChanged` and `videoEnabled` when frames of the
    /// new layer arrive); a replay that finds these lines for a stream takes its limits from
    /// them alone.
    public static let subscriberReceiveLimit = "subscriber.receiveLimit"

    /// The layer policy's events, in the order of the ndjson documentation.
    public static let subscriberPolicyEvents = [subscriberLayerChanged, subscriberVideoDisabled, subscriberVideoEnabled, subscriberVideoDisableWarning]
}
