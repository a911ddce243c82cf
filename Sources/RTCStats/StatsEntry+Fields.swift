// Typed accessors for the W3C fields the engine reads (through the known-field index, no string
// comparison). Absent or mistyped fields read as nil.
extension StatsEntry {
    /// `kind` of an RTP or media-source entry: `audio` or `video`.
    public var kind: String? { value(.kind)?.string ?? value(.mediaType)?.string }
    /// `ssrc` of an RTP stream entry.
    public var ssrc: Double? { value(.ssrc)?.number }
    /// `mid` of an RTP stream entry. Read as a string whether the source wrote a string or a
    /// number (Chrome's webrtc-internals dumps write mid `"1"` as `1`).
    public var mid: String? { value(.mid)?.identifier }
    /// `rid` of a simulcast `outbound-rtp` entry, string or number (MS Teams' rids 1/2/3 come
    /// out of webrtc-internals as numbers).
    public var rid: String? { value(.rid)?.identifier }
    /// `codecId` of an RTP stream entry.
    public var codecID: String? { value(.codecId)?.string }
    /// `transportId` of an RTP stream or candidate-pair entry.
    public var transportID: String? { value(.transportId)?.string }
    /// `trackIdentifier` of an `inbound-rtp` or `media-source` entry.
    public var trackIdentifier: String? { value(.trackIdentifier)?.string }
    /// `bytesSent` (payload bytes, without headers and padding).
    public var bytesSent: Double? { value(.bytesSent)?.number }
    /// `headerBytesSent` (RTP header and padding bytes).
    public var headerBytesSent: Double? { value(.headerBytesSent)?.number }
    /// `bytesReceived` (payload bytes).
    public var bytesReceived: Double? { value(.bytesReceived)?.number }
    /// `headerBytesReceived` (RTP header and padding bytes).
    public var headerBytesReceived: Double? { value(.headerBytesReceived)?.number }
    /// `packetsSent`.
    public var packetsSent: Double? { value(.packetsSent)?.number }
    /// `packetsReceived`.
    public var packetsReceived: Double? { value(.packetsReceived)?.number }
    /// `packetsLost` (signed in W3C; negative with duplicates).
    public var packetsLost: Double? { value(.packetsLost)?.number }
    /// `frameWidth`.
    public var frameWidth: Double? { value(.frameWidth)?.number }
    /// `frameHeight`.
    public var frameHeight: Double? { value(.frameHeight)?.number }
    /// `framesPerSecond`.
    public var framesPerSecond: Double? { value(.framesPerSecond)?.number }
    /// `framesEncoded`.
    public var framesEncoded: Double? { value(.framesEncoded)?.number }
    /// `framesDecoded`.
    public var framesDecoded: Double? { value(.framesDecoded)?.number }
    /// `localId` of a `remote-inbound-rtp`/`remote-outbound-rtp` entry: the local RTP entry it describes.
    public var localID: String? { value(.localId)?.string }
    /// `roundTripTime` in seconds.
    public var roundTripTime: Double? { value(.roundTripTime)?.number }
    /// `jitter` in seconds.
    public var jitter: Double? { value(.jitter)?.number }
    /// `mimeType` of a `codec` entry, e.g. `video/VP8`.
    public var mimeType: String? { value(.mimeType)?.string }
    /// `selectedCandidatePairId` of a `transport` entry.
    public var selectedCandidatePairID: String? { value(.selectedCandidatePairId)?.string }
    /// `availableOutgoingBitrate` of a `candidate-pair` entry, bps.
    public var availableOutgoingBitrate: Double? { value(.availableOutgoingBitrate)?.number }
    /// `availableIncomingBitrate` of a `candidate-pair` entry, bps.
    public var availableIncomingBitrate: Double? { value(.availableIncomingBitrate)?.number }
    /// `currentRoundTripTime` of a `candidate-pair` entry, seconds.
    public var currentRoundTripTime: Double? { value(.currentRoundTripTime)?.number }
    /// `active` of an `outbound-rtp` entry.
    public var active: Bool? { value(.active)?.bool }
    /// `packetsLost`-style fraction of a `remote-inbound-rtp` entry.
    public var fractionLost: Double? { value(.fractionLost)?.number }
    /// `qualityLimitationReason` of a video `outbound-rtp` entry.
    public var qualityLimitationReason: String? { value(.qualityLimitationReason)?.string }
    /// `qualityLimitationResolutionChanges` of a video `outbound-rtp` entry.
    public var qualityLimitationResolutionChanges: Double? { value(.qualityLimitationResolutionChanges)?.number }
    /// `scalabilityMode` of a video `outbound-rtp` entry.
    public var scalabilityMode: String? { value(.scalabilityMode)?.string }
    /// `framesReceived` of a video `inbound-rtp` entry.
    public var framesReceived: Double? { value(.framesReceived)?.number }
    /// W3C `freezeCount` of a video `inbound-rtp` entry.
    public var freezeCount: Double? { value(.freezeCount)?.number }
    /// `totalFreezesDuration`, seconds.
    public var totalFreezesDuration: Double? { value(.totalFreezesDuration)?.number }
    /// `pauseCount`.
    public var pauseCount: Double? { value(.pauseCount)?.number }
    /// `totalPausesDuration`, seconds.
    public var totalPausesDuration: Double? { value(.totalPausesDuration)?.number }
    /// `trackId` of a legacy RTP entry: its `track` entry.
    public var trackID: String? { value(.trackId)?.string }
    /// `selected` of a Firefox `candidate-pair`.
    public var selected: Bool? { value(.selected)?.bool }
    /// `nominated` of a `candidate-pair`.
    public var nominated: Bool? { value(.nominated)?.bool }
    /// `state` of a `candidate-pair`.
    public var state: String? { value(.state)?.string }
}
