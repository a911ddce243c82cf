/// The names of the timeline events a replay acts on (see `recording-format.md`).
public enum TimelineEventName {
    /// A sender-stats message the endpoint received; `data` is the message.
    public static let senderStats = "sender-stats"
    /// Which remote publisher is behind which `mid` of a subscriber connection (the router's
    /// stream list): `data.streams[]` with `mid`, `type` and `publisher`.
    public static let subscriberStreams = "subscriber-streams"
}
