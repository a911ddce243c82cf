/// The media of an RTP stream.
public enum MediaKind: String, Sendable, Hashable, CaseIterable {
    case audio
    case video
}
