/// The media of an RTP stream.
public enum MediaKind: String, Sendable, Hashable, CaseIterable {
    case audio
    case video

    /// The kind a W3C `kind` names; `nil` for anything else. Compared directly: a raw-value
    /// initialiser goes through the runtime's string-switch table, several times per entry.
    init?(w3c kind: String) {
        if kind == "video" {
            self = .video
        } else if kind == "audio" {
            self = .audio
        } else {
            return nil
        }
    }
}
