import RTCStats

/// Which subscriber a publisher's statistics describe.
public struct PublisherLink: Sendable, Hashable {
    /// Relayed: the subscribing client's connection id; empty when routed.
    public var connectionId: String
    /// Relayed: the subscriber id; empty when routed.
    public var subscriberId: String

    /// Creates a link.
    public init(connectionId: String, subscriberId: String) {
        self.connectionId = connectionId
        self.subscriberId = subscriberId
    }

    /// A routed session: one link to the media router.
    public static let routed = PublisherLink(connectionId: "", subscriberId: "")
}

/// The statistics one publisher report produced for one link.
public struct PublisherLinkUpdate: Sendable, Hashable {
    /// Video stats; `nil` when the report has no video sender.
    public var video: PublisherVideoNetworkStats?
    /// Audio stats; `nil` when the report has no audio sender.
    public var audio: PublisherAudioNetworkStats?
    /// Transport stats.
    public var mediaLink: PublisherMediaLinkStats
}

/// Turns the reports of one publisher link into session-aware statistics.
///
/// The link may be served by several peer connections over time (ICE restart, reconnection):
/// totals carry over, rates never span two connections, startTime never moves.
public struct PublisherLinkTracker: Sendable {
    /// The link described.
    public let link: PublisherLink
    private let configuration: StatsEngineConfiguration
    private var startTime: Double?
    private var lastReportTime: [String: Double] = [:]
    private var memory: [String: LayerMemory] = [:]
    private var previousSendingLayers: Set<String> = []

    private var videoBytes = CumulativeCounter()
    private var videoHeaderBytes = CumulativeCounter()
    private var videoPackets = CumulativeCounter()
    private var videoFrames = CumulativeCounter()
    private var videoLost = CumulativeCounter()
    private var audioBytes = CumulativeCounter()
    private var audioPackets = CumulativeCounter()
    private var audioLost = CumulativeCounter()

    private struct LayerMemory: Sendable {
        var timestamp: Double
        var codecID: String?
        var resolutionChanges: Double?
    }

    /// Creates a tracker for `link`.
    public init(link: PublisherLink = .routed, configuration: StatsEngineConfiguration = .init()) {
        self.link = link
        self.configuration = configuration
    }

    /// Feeds one report of one of the link's peer connections. Returns `nil` for a report with
    /// no entries or a timestamp not after that connection's previous report (ignored).
    public mutating func ingest(_ report: StatsReport, peerConnection: String) -> PublisherLinkUpdate? {
        guard let time = report.timestamp else { return nil }
        if let last = lastReportTime[peerConnection], time <= last { return nil }
        lastReportTime[peerConnection] = time
        let start = startTime ?? time
        startTime = start

        let remoteInbound = report.remoteInboundByLocalID()
        var layers: [(order: LayerOrder, stats: PublisherVideoLayerStats)] = []
        var sendingLayers: Set<String> = []
        var hasVideo = false
        var hasAudio = false
        var pendingReasons: [(index: Int, memory: LayerMemory?, entry: StatsEntry)] = []

        for entry in report.entries(ofType: .outboundRTP) {
            let source = peerConnection + "|" + entry.id
            let previous = memory[source]
            let elapsed = previous.map { entry.timestamp - $0.timestamp }.flatMap { $0 > 0 && $0 <= configuration.maximumRateGapMilliseconds ? $0 : nil }
            memory[source] = LayerMemory(timestamp: entry.timestamp, codecID: entry.codecID, resolutionChanges: entry.number("qualityLimitationResolutionChanges"))
            let remote = remoteInbound[entry.id]
            switch entry.mediaKind {
            case "video":
                hasVideo = true
                let payload = videoBytes.update(source: source, value: entry.bytesSent)
                let header = videoHeaderBytes.update(source: source, value: entry.headerBytesSent)
                videoPackets.update(source: source, value: entry.packetsSent)
                let frames = videoFrames.update(source: source, value: entry.framesEncoded)
                if let remote { videoLost.update(source: peerConnection + "|" + remote.id, value: remote.packetsLost) }
                let isActive = entry.bool("active") != false
                let isSending = isActive && ((payload ?? 0) > 0 || (previous == nil && (entry.bytesSent ?? 0) > 0))
                guard isSending else { continue }
                sendingLayers.insert(entry.rid ?? source)
                let bitrate = RateCalculator.bitsPerSecond(bytes: payload, milliseconds: elapsed)
                let headerRate = entry.headerBytesSent == nil ? 0 : RateCalculator.bitsPerSecond(bytes: header, milliseconds: elapsed)
                let frameRate = entry.framesPerSecond ?? RateCalculator.perSecond(frames, milliseconds: elapsed) ?? 0
                let stats = PublisherVideoLayerStats(
                    width: Int(entry.frameWidth ?? 0), height: Int(entry.frameHeight ?? 0),
                    encodedFrameRate: frameRate,
                    bitrate: bitrate ?? 0,
                    totalBitrate: bitrate.map { $0 + (headerRate ?? 0) } ?? 0,
                    scalabilityMode: entry.string("scalabilityMode"),
                    qualityLimitationReason: .none,
                    codec: report.codecName(of: entry),
                    rid: entry.rid)
                pendingReasons.append((layers.count, previous, entry))
                layers.append((LayerOrder(entry), stats))
            case "audio":
                hasAudio = true
                audioBytes.update(source: source, value: entry.bytesSent)
                audioPackets.update(source: source, value: entry.packetsSent)
                if let remote { audioLost.update(source: peerConnection + "|" + remote.id, value: remote.packetsLost) }
            default:
                continue
            }
        }

        let layersChanged = !previousSendingLayers.isEmpty && sendingLayers != previousSendingLayers
        previousSendingLayers = sendingLayers
        for pending in pendingReasons {
            layers[pending.index].stats.qualityLimitationReason = Self.limitationReason(pending.entry, previous: pending.memory, layersChanged: layersChanged)
        }
        let orderedLayers = layers.sorted { $0.order < $1.order }.map(\.stats)

        let transport = TransportStats(connectionEstimatedBandwidth: report.selectedCandidatePair?.availableOutgoingBitrate ?? 0)
        let video = hasVideo ? PublisherVideoNetworkStats(
            connectionId: link.connectionId, subscriberId: link.subscriberId,
            videoPacketsLost: videoLost.count, videoPacketsSent: videoPackets.count, videoBytesSent: videoBytes.count,
            videoFrameRate: orderedLayers.last?.encodedFrameRate ?? 0,
            timestamp: time, startTime: start, videoLayers: orderedLayers, transport: transport) : nil
        let audio = hasAudio ? PublisherAudioNetworkStats(
            connectionId: link.connectionId, subscriberId: link.subscriberId,
            audioPacketsLost: audioLost.count, audioPacketsSent: audioPackets.count, audioBytesSent: audioBytes.count,
            timestamp: time, startTime: start, transport: transport) : nil
        return PublisherLinkUpdate(video: video, audio: audio, mediaLink: PublisherMediaLinkStats(connectionId: link.connectionId, subscriberId: link.subscriberId, transport: transport))
    }

    /// W3C `bandwidth`/`cpu`/`other` win (they say what limits the encoder now); otherwise a codec
    /// switch, then a change of the sending layer set, then a resolution change.
    private static func limitationReason(_ entry: StatsEntry, previous: LayerMemory?, layersChanged: Bool) -> QualityLimitationReason {
        switch entry.string("qualityLimitationReason") {
        case "bandwidth": return .bandwidth
        case "cpu": return .cpu
        case "other": return .other
        default: break
        }
        if let previous, let before = previous.codecID, let now = entry.codecID, before != now { return .codec }
        if layersChanged { return .layerChange }
        if let before = previous?.resolutionChanges, let now = entry.number("qualityLimitationResolutionChanges"), now > before { return .resolution }
        return .none
    }
}

/// Low to high: by pixel count, then by simulcast rid (`q` < `h` < `f`, or numeric), then SSRC.
struct LayerOrder: Comparable, Sendable {
    var pixels: Double
    var ridRank: Int
    var rid: String
    var ssrc: Double

    init(_ entry: StatsEntry) {
        pixels = (entry.frameWidth ?? 0) * (entry.frameHeight ?? 0)
        rid = entry.rid ?? ""
        switch rid {
        case "q", "l", "low": ridRank = 0
        case "h", "m", "mid", "medium": ridRank = 1
        case "f", "high", "full": ridRank = 2
        default: ridRank = Int(rid) ?? 1
        }
        ssrc = entry.ssrc ?? 0
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.pixels, lhs.ridRank, lhs.rid, lhs.ssrc) < (rhs.pixels, rhs.ridRank, rhs.rid, rhs.ssrc)
    }
}
