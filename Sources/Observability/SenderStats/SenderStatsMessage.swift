import RTCStats

/// The sender-side stats message a publisher sends its subscribers once per interval over a
/// data channel (wire version 3, at most 1 KiB of JSON; version 1 — without `rid` on the
/// layers and without `audioFallbackEnabled` — and version 2 — without `paths` — are still read):
///
/// ```json
/// {"type":"callscope-sender-stats","v":3,"seq":17,"t":1795983359122,
///  "connectionMaxAllocatedBitrate":2214000,"connectionEstimatedBandwidth":267203,
///  "rttMs":12,"lossFraction":0.02,"condition":"critical","reason":"bandwidth",
///  "layers":[{"w":240,"h":135,"bps":150000,"rid":"q"}],"audioFallbackEnabled":true,"videoEnabled":true,
///  "paths":["udpRelay"],"publisher":"feed-4711"}
/// ```
/// Beyond the two bitrates of docs/spec/observability.md §4 it carries the publisher's uplink
/// loss and RTT, so a subscriber
/// can tell loss that arrived already lost, and (optionally) the publisher's own uplink condition
/// and the bitrate of each layer it sends, the demand a subscriber's downlink is measured against.
/// In a routed call it also carries the far leg: the publisher's own working paths to the router
/// (version 3), so a subscriber can show both legs.
public struct SenderStatsMessage: Sendable, Hashable {
    /// The wire version this build writes.
    public static let version = 3
    /// The wire versions this build reads.
    public static let readableVersions = 1...3
    /// The longest layer `rid` accepted, in UTF-8 bytes.
    public static let maximumRidLength = 16
    /// The `type` tag.
    public static let typeTag = "callscope-sender-stats"
    /// The largest message accepted, in bytes.
    public static let maximumSize = 1024
    /// The longest `publisher` id accepted, in UTF-8 bytes.
    public static let maximumPublisherLength = 64

    /// A sending layer and its current bitrate.
    public struct Layer: Sendable, Hashable {
        /// Encoded width, px.
        public var width: Int
        /// Encoded height, px.
        public var height: Int
        /// Current payload bitrate, bps.
        public var bitrate: Double
        /// The simulcast `rid`, so a subscriber can name the layer to the router (version 2).
        public var rid: String?

        /// Creates a layer.
        public init(width: Int, height: Int, bitrate: Double, rid: String? = nil) {
            self.width = width
            self.height = height
            self.bitrate = bitrate
            self.rid = rid
        }
    }

    /// A kind of working path from the publisher to the router (the names of the Calls module's
    /// `ConnectionPaths`): what its publishing connection's working candidate pairs go over.
    public enum Path: String, Sendable, Hashable, CaseIterable {
        /// A non-relayed candidate over UDP.
        case udpDirect
        /// A TURN relay reached over UDP.
        case udpRelay
        /// A TURN relay reached over TCP or TLS.
        case tcpRelay
    }

    /// Sequence number, increasing per message.
    public var sequence: Int
    /// Unix ms when the publisher sampled its stats.
    public var timestamp: Double
    /// Sum of the maximum bitrates of the active encodings, audio included, bps.
    public var connectionMaxAllocatedBitrate: Double
    /// The publisher's uplink estimate, bps (`nil` when it has none).
    public var connectionEstimatedBandwidth: Double?
    /// The publisher's uplink round-trip time, ms.
    public var roundTripTime: Double?
    /// The publisher's uplink loss fraction over the last interval, 0…1.
    public var lossFraction: Double?
    /// The publisher's own uplink condition, when its SDK computed one.
    public var condition: NetworkCondition?
    /// What set that condition.
    public var reason: NetworkConditionReason?
    /// The layers being sent, low to high (at most 8).
    public var layers: [Layer]
    /// The sending publisher, so that a subscriber connection carrying several publishers'
    /// messages on one data channel (an SFU multistream connection) can tell them apart;
    /// optional (two-party calls need none).
    public var publisher: PublisherID?
    /// Whether the publisher lets subscribers fall back to audio only when their network cannot
    /// carry its video (the publisher's `audioFallbackEnabled`; `nil` from version 1: allowed).
    public var audioFallbackEnabled: Bool?
    /// The publisher's working paths to the router, each once, in ``Path`` declaration order
    /// (version 3; `nil` when the publisher did not say, empty when none of its pairs works).
    public var paths: [Path]?

    /// Whether the publisher sends its camera now (`CallPublisher.publishVideo`; a disabled track
    /// still sends black frames, so the bitrates cannot tell); `nil` when not said.
    public var videoEnabled: Bool?

    /// Creates a message.
    public init(sequence: Int, timestamp: Double, connectionMaxAllocatedBitrate: Double, connectionEstimatedBandwidth: Double?, roundTripTime: Double? = nil, lossFraction: Double? = nil, condition: NetworkCondition? = nil, reason: NetworkConditionReason? = nil, layers: [Layer] = [], publisher: PublisherID? = nil, audioFallbackEnabled: Bool? = nil, paths: [Path]? = nil, videoEnabled: Bool? = nil) {
        self.videoEnabled = videoEnabled
        self.publisher = publisher
        self.paths = paths.map { given in Path.allCases.filter(given.contains) }
        self.audioFallbackEnabled = audioFallbackEnabled
        self.sequence = sequence
        self.timestamp = timestamp
        self.connectionMaxAllocatedBitrate = connectionMaxAllocatedBitrate
        self.connectionEstimatedBandwidth = connectionEstimatedBandwidth
        self.roundTripTime = roundTripTime
        self.lossFraction = lossFraction
        self.condition = condition
        self.reason = reason
        self.layers = layers
    }

    /// The `SenderStats` a subscriber reports from this message.
    public var senderStats: SenderStats {
        SenderStats(connectionMaxAllocatedBitrate: connectionMaxAllocatedBitrate, connectionEstimatedBandwidth: connectionEstimatedBandwidth ?? 0,
                    unmeasured: connectionEstimatedBandwidth == nil ? .estimatedBandwidth : [])
    }

    /// The wire form (compact JSON, at most ``maximumSize`` bytes: layers past eight are dropped).
    public func encoded() -> [UInt8] {
        var fields: [StatsField] = [
            StatsField("type", .string(Self.typeTag)), StatsField("v", .number(Double(Self.version))),
            StatsField("seq", .number(Double(sequence))), StatsField("t", .number(timestamp.rounded())),
            StatsField("connectionMaxAllocatedBitrate", .number(connectionMaxAllocatedBitrate.rounded())),
            StatsField("connectionEstimatedBandwidth", connectionEstimatedBandwidth.map { .number($0.rounded()) } ?? .null),
            StatsField("rttMs", roundTripTime.map { .number($0.rounded()) } ?? .null),
            StatsField("lossFraction", lossFraction.map { .number(($0 * 10000).rounded() / 10000) } ?? .null),
        ]
        if let condition { fields.append(StatsField("condition", .string(condition.rawValue))) }
        if let reason { fields.append(StatsField("reason", .string(reason.rawValue))) }
        if !layers.isEmpty {
            fields.append(StatsField("layers", .array(layers.prefix(8).map { layer in
                var fields = [StatsField("w", .number(Double(layer.width))), StatsField("h", .number(Double(layer.height))), StatsField("bps", .number(layer.bitrate.rounded()))]
                if let rid = layer.rid, (1...Self.maximumRidLength).contains(rid.utf8.count) { fields.append(StatsField("rid", .string(rid))) }
                return .object(fields)
            })))
        }
        if let audioFallbackEnabled { fields.append(StatsField("audioFallbackEnabled", .bool(audioFallbackEnabled))) }
        if let paths { fields.append(StatsField("paths", .array(Path.allCases.filter(paths.contains).map { .string($0.rawValue) }))) }
        if let videoEnabled { fields.append(StatsField("videoEnabled", .bool(videoEnabled))) }
        if let publisher, (1...Self.maximumPublisherLength).contains(publisher.rawValue.utf8.count) {
            fields.append(StatsField("publisher", .string(publisher.rawValue)))
        }
        return Array(JSONWriter.string(.object(fields)).utf8)
    }
}
