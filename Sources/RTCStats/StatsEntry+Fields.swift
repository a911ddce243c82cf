// Typed accessors for the W3C fields the engine reads. Absent or mistyped fields read as nil.
extension StatsEntry {
    /// `kind` of an RTP or media-source entry: `audio` or `video`.
    public var kind: String? { string("kind") ?? string("mediaType") }
    /// `ssrc` of an RTP stream entry.
    public var ssrc: Double? { number("ssrc") }
    /// `mid` of an RTP stream entry.
    public var mid: String? { string("mid") }
    /// `rid` of a simulcast `outbound-rtp` entry.
    public var rid: String? { string("rid") }
    /// `codecId` of an RTP stream entry.
    public var codecID: String? { string("codecId") }
    /// `transportId` of an RTP stream or candidate-pair entry.
    public var transportID: String? { string("transportId") }
    /// `trackIdentifier` of an `inbound-rtp` or `media-source` entry.
    public var trackIdentifier: String? { string("trackIdentifier") }
    /// `bytesSent` (payload bytes, without headers and padding).
    public var bytesSent: Double? { number("bytesSent") }
    /// `headerBytesSent` (RTP header and padding bytes).
    public var headerBytesSent: Double? { number("headerBytesSent") }
    /// `bytesReceived` (payload bytes).
    public var bytesReceived: Double? { number("bytesReceived") }
    /// `headerBytesReceived` (RTP header and padding bytes).
    public var headerBytesReceived: Double? { number("headerBytesReceived") }
    /// `packetsSent`.
    public var packetsSent: Double? { number("packetsSent") }
    /// `packetsReceived`.
    public var packetsReceived: Double? { number("packetsReceived") }
    /// `packetsLost` (signed in W3C; negative with duplicates).
    public var packetsLost: Double? { number("packetsLost") }
    /// `frameWidth`.
    public var frameWidth: Double? { number("frameWidth") }
    /// `frameHeight`.
    public var frameHeight: Double? { number("frameHeight") }
    /// `framesPerSecond`.
    public var framesPerSecond: Double? { number("framesPerSecond") }
    /// `framesEncoded`.
    public var framesEncoded: Double? { number("framesEncoded") }
    /// `framesDecoded`.
    public var framesDecoded: Double? { number("framesDecoded") }
    /// `localId` of a `remote-inbound-rtp`/`remote-outbound-rtp` entry: the local RTP entry it describes.
    public var localID: String? { string("localId") }
    /// `roundTripTime` in seconds.
    public var roundTripTime: Double? { number("roundTripTime") }
    /// `jitter` in seconds.
    public var jitter: Double? { number("jitter") }
    /// `mimeType` of a `codec` entry, e.g. `video/VP8`.
    public var mimeType: String? { string("mimeType") }
    /// `selectedCandidatePairId` of a `transport` entry.
    public var selectedCandidatePairID: String? { string("selectedCandidatePairId") }
    /// `availableOutgoingBitrate` of a `candidate-pair` entry, bps.
    public var availableOutgoingBitrate: Double? { number("availableOutgoingBitrate") }
    /// `availableIncomingBitrate` of a `candidate-pair` entry, bps.
    public var availableIncomingBitrate: Double? { number("availableIncomingBitrate") }
    /// `currentRoundTripTime` of a `candidate-pair` entry, seconds.
    public var currentRoundTripTime: Double? { number("currentRoundTripTime") }
}
