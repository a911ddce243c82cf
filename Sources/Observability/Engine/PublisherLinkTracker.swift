import RTCStats

/// Which subscriber a publisher's statistics describe.
struct PublisherLink: Sendable, Hashable {
    /// Relayed: the subscribing client's connection id; empty when routed.
    var connectionId: String
    /// Relayed: the subscriber id; empty when routed.
    var subscriberId: String

    /// Creates a link.
    init(connectionId: String, subscriberId: String) {
        self.connectionId = connectionId
        self.subscriberId = subscriberId
    }

    /// A routed session: one link to the media router.
    static let routed = PublisherLink(connectionId: "", subscriberId: "")
}

/// The statistics one publisher report produced for one link.
struct PublisherLinkUpdate: Sendable, Hashable {
    /// Video stats; `nil` when the report has no video sender.
    var video: PublisherVideoNetworkStats?
    /// Audio stats; `nil` when the report has no audio sender.
    var audio: PublisherAudioNetworkStats?
    /// Transport stats.
    var mediaLink: PublisherMediaLinkStats
    /// The uplink's newly adopted condition, when it changed with this report.
    var conditionChange: NetworkConditionChange?
    /// Why the video quality changed with this report (empty when it did not).
    var videoQualityChanges: [PublisherVideoEventReason] = []
}

/// Turns the reports of one publisher link into session-aware statistics.
///
/// The link may be served by several peer connections over time (ICE restart, reconnection):
/// totals carry over, rates never span two connections, startTime never moves.
struct PublisherLinkTracker: Sendable {
    /// The link described.
    let link: PublisherLink
    private let configuration: StatsEngineConfiguration
    private var startTime: Double?
    private var connections: [String: ConnectionMemory] = [:]
    private var previousSendingLayers: [String] = []

    private var videoBytes = CounterTotal()
    private var videoPackets = CounterTotal()
    private var videoLost = CounterTotal()
    private var audioBytes = CounterTotal()
    private var audioPackets = CounterTotal()
    private var audioLost = CounterTotal()

    private var scorer: ConditionScorer
    private var lastLossTotals: (lost: Double, sent: Double)?
    private var highestTargetTotal: Double = 0
    private var queueing: QueueingDetector
    private var previousVideo: (layers: [PublisherVideoLayerStats], limitations: [QualityLimitationReason])?
    /// The uplink loss fraction over the last interval, when known (for sender stats).
    private(set) var uplinkLossFraction: Double?
    /// The uplink round-trip time, ms, when known (for sender stats).
    private(set) var uplinkRoundTrip: Double?
    /// The demand the uplink headroom is measured against, bps.
    private(set) var maxAllocatedBitrate: Double = 0
    /// Values out of their physical bounds, dropped.
    private(set) var dropped = DroppedValues()

    /// What one peer connection's previous report said, per entry id.
    private struct ConnectionMemory: Sendable {
        var reportTime: Double = -.infinity
        var senders = EntryMemory<SenderMemory>()
        var remoteLost = EntryMemory<Double?>()
    }

    /// A sending layer before the layer set is known (ordered by index afterwards, never moved).
    private struct PendingLayer {
        var order: LayerOrder
        var stats: PublisherVideoLayerStats
        var entry: StatsEntry
        var previous: SenderMemory
        var limitation: QualityLimitationReason
    }

    private struct SenderMemory: Sendable {
        var timestamp: Double?
        var bytes: Double?
        var headerBytes: Double?
        var packets: Double?
        var frames: Double?
        var codecID: String?
        var codecName: String?
        var resolutionChanges: Double?
    }

    /// Creates a tracker for `link`.
    init(link: PublisherLink = .routed, configuration: StatsEngineConfiguration = .init()) {
        self.link = link
        self.configuration = configuration
        self.scorer = ConditionScorer(thresholds: configuration.thresholds)
        self.queueing = QueueingDetector(threshold: configuration.queueingDelayMilliseconds)
    }

    /// Feeds one report of one of the link's peer connections. Returns `nil` for a report with
    /// no entries or a timestamp not after that connection's previous report (ignored).
    mutating func ingest(_ report: StatsReport, peerConnection: String) -> PublisherLinkUpdate? {
        ingest(report, digest: ReportDigest(report), peerConnection: peerConnection)
    }

    mutating func ingest(_ report: StatsReport, digest: ReportDigest, peerConnection: String) -> PublisherLinkUpdate? {
        guard let time = digest.time else { return nil }
        // Taken out of the dictionary while it changes, so its dictionaries are not copied.
        var connection = connections.removeValue(forKey: peerConnection) ?? ConnectionMemory()
        guard time > connection.reportTime else {
            connections[peerConnection] = connection
            return nil
        }
        // A sender first seen after the connection's first report started within the last
        // interval: its first values count against zero over that interval.
        let previousReport: Double? = connection.reportTime.isFinite ? connection.reportTime : nil
        connection.reportTime = time
        let start = startTime ?? time
        startTime = start

        var layers: [PendingLayer] = []
        var hasVideo = false
        var hasAudio = false
        var targetTotal = 0.0
        var roundTrip: Double?

        for (position, entry) in digest.outbound.enumerated() {
            var memory = connection.senders.value(for: entry.id, position: position) ?? SenderMemory()
            let previous = memory
            let isNew = memory.timestamp == nil && previousReport != nil
            let elapsed = RateCalculator.usableInterval(from: memory.timestamp ?? previousReport, to: entry.timestamp, maximumGap: configuration.maximumRateGapMilliseconds)
            memory.timestamp = entry.timestamp
            // The codec's name is looked up once per codec id, not every report.
            if memory.codecID != entry.codecID || memory.codecName == nil {
                memory.codecName = report.codecName(of: entry)
            }
            memory.codecID = entry.codecID
            memory.resolutionChanges = entry.qualityLimitationResolutionChanges
            let remote = digest.remoteInbound[position]
            if entry.active != false, let target = entry.value(.targetBitrate)?.number, target.isFinite, target > 0 { targetTotal += target }
            if let rtt = dropped.check(remote?.roundTripTime.map { $0 * 1000 }, PhysicalBounds.delay, .delay) { roundTrip = max(roundTrip ?? 0, rtt) }
            switch entry.mediaKind {
            case .video?:
                hasVideo = true
                var payload = videoBytes.advance(&memory.bytes, to: entry.bytesSent)
                var headerIncrease = CounterTotal.increase(&memory.headerBytes, to: entry.headerBytesSent)
                videoPackets.advance(&memory.packets, to: entry.packetsSent)
                var frames = CounterTotal.increase(&memory.frames, to: entry.framesEncoded)
                if isNew {
                    payload = memory.bytes
                    headerIncrease = memory.headerBytes
                    frames = memory.frames
                }
                if let remote {
                    var lost = connection.remoteLost.value(for: remote.id, position: position) ?? nil
                    videoLost.advance(&lost, to: remote.packetsLost)
                    connection.remoteLost.set(lost, for: remote.id, position: position)
                }
                connection.senders.set(memory, for: entry.id, position: position)
                // A counter that went backwards (a reset under the same id) is still a sending
                // layer, with no rate for that interval: a reset is not a layer change.
                let counted = (entry.bytesSent ?? 0) > 0 && (previous.bytes == nil || (entry.bytesSent ?? 0) < (previous.bytes ?? 0))
                let isSending = entry.active != false && ((payload ?? 0) > 0 || counted)
                guard isSending else { continue }
                let bitrate = dropped.check(RateCalculator.bitsPerSecond(bytes: payload, milliseconds: elapsed), PhysicalBounds.bitrate, .bitrate)
                let headerRate = entry.headerBytesSent == nil ? 0 : dropped.check(RateCalculator.bitsPerSecond(bytes: headerIncrease, milliseconds: elapsed), PhysicalBounds.bitrate, .bitrate)
                let frameRate = dropped.check(entry.framesPerSecond, PhysicalBounds.frameRate, .frameRate)
                    ?? dropped.check(RateCalculator.perSecond(frames, milliseconds: elapsed), PhysicalBounds.frameRate, .frameRate)
                let stats = PublisherVideoLayerStats(
                    width: (entry.frameWidth ?? 0).pixels, height: (entry.frameHeight ?? 0).pixels,
                    encodedFrameRate: frameRate ?? 0,
                    bitrate: bitrate ?? 0,
                    totalBitrate: bitrate.map { $0 + (headerRate ?? 0) } ?? 0,
                    scalabilityMode: entry.scalabilityMode,
                    qualityLimitationReason: .none,
                    codec: memory.codecName,
                    rid: entry.rid,
                    unmeasured: UnmeasuredValues(bitrate: bitrate, frameRate: frameRate))
                layers.append(PendingLayer(order: LayerOrder(entry), stats: stats, entry: entry, previous: previous,
                                           limitation: QualityLimitationReason(w3c: entry.qualityLimitationReason)))
            case .audio?:
                hasAudio = true
                audioBytes.advance(&memory.bytes, to: entry.bytesSent)
                audioPackets.advance(&memory.packets, to: entry.packetsSent)
                if let remote {
                    var lost = connection.remoteLost.value(for: remote.id, position: position) ?? nil
                    audioLost.advance(&lost, to: remote.packetsLost)
                    connection.remoteLost.set(lost, for: remote.id, position: position)
                }
                connection.senders.set(memory, for: entry.id, position: position)
            default:
                continue
            }
        }
        connections[peerConnection] = connection

        // Indices are sorted, not the layers, and the layers are read in place: copying whole
        // layers (strings, an entry, memory) cost more than everything else per report.
        let orders = layers.map(\.order)
        let ranking = layers.indices.sorted { orders[$0] < orders[$1] }
        // The set of sending layers, as sorted names (a resolution change may reorder layers).
        var sendingLayers: [String] = [], limitations: [QualityLimitationReason] = [], orderedLayers: [PublisherVideoLayerStats] = []
        sendingLayers.reserveCapacity(layers.count)
        limitations.reserveCapacity(layers.count)
        orderedLayers.reserveCapacity(layers.count)
        for index in ranking {
            sendingLayers.append(layers[index].entry.rid ?? layers[index].entry.id)
            limitations.append(layers[index].limitation)
        }
        sendingLayers.sort()
        let layersChanged = !previousSendingLayers.isEmpty && sendingLayers != previousSendingLayers
        previousSendingLayers = sendingLayers
        for index in ranking {
            var stats = layers[index].stats
            stats.qualityLimitationReason = Self.limitationReason(layers[index].entry, previous: layers[index].previous, layersChanged: layersChanged)
            orderedLayers.append(stats)
        }

        let estimate = dropped.check(digest.selectedPair?.availableOutgoingBitrate, PhysicalBounds.estimate, .estimate)
        let pairRoundTrip = dropped.check(digest.selectedPair?.currentRoundTripTime.map { $0 * 1000 }, PhysicalBounds.delay, .delay)
        let conditionChange = scoreUplink(estimate: estimate, targetTotal: targetTotal, roundTrip: roundTrip ?? pairRoundTrip,
                                           bandwidthLimited: limitations.contains(.bandwidth), videoOn: !orderedLayers.isEmpty, hasMedia: hasVideo || hasAudio)
        let transport = TransportStats(estimate: estimate, networkCondition: scorer.condition, networkConditionReason: scorer.reason)
        let qualityChanges = hasVideo ? videoQualityChanges(orderedLayers, limitations: limitations) : []
        let video = hasVideo ? PublisherVideoNetworkStats(
            connectionId: link.connectionId, subscriberId: link.subscriberId,
            videoPacketsLost: videoLost.count, videoPacketsSent: videoPackets.count, videoBytesSent: videoBytes.count,
            videoFrameRate: orderedLayers.last?.encodedFrameRate ?? 0,
            timestamp: time, startTime: start, videoLayers: orderedLayers, transport: transport,
            unmeasured: orderedLayers.last?.unmeasured.intersection(.frameRate) ?? []) : nil
        let audio = hasAudio ? PublisherAudioNetworkStats(
            connectionId: link.connectionId, subscriberId: link.subscriberId,
            audioPacketsLost: audioLost.count, audioPacketsSent: audioPackets.count, audioBytesSent: audioBytes.count,
            timestamp: time, startTime: start, transport: transport) : nil
        return PublisherLinkUpdate(video: video, audio: audio, mediaLink: PublisherMediaLinkStats(connectionId: link.connectionId, subscriberId: link.subscriberId, transport: transport),
                                   conditionChange: conditionChange, videoQualityChanges: qualityChanges)
    }

    // MARK: Condition and quality

    /// Scores the uplink: loss Δlost/Δsent from `remote-inbound-rtp`, headroom = estimate ÷
    /// max allocated bitrate, queueing from RTT above its lowest. Returns the newly adopted
    /// condition, when it changed.
    private mutating func scoreUplink(estimate: Double?, targetTotal: Double, roundTrip: Double?, bandwidthLimited: Bool, videoOn: Bool, hasMedia: Bool) -> NetworkConditionChange? {
        let sent = videoPackets.total + audioPackets.total
        let lost = videoLost.total + audioLost.total
        var loss: Double?
        if let last = lastLossTotals, sent > last.sent { loss = min(1, max(0, lost - last.lost) / (sent - last.sent)) }
        lastLossTotals = (lost, sent)
        uplinkLossFraction = loss
        highestTargetTotal = max(highestTargetTotal, targetTotal)
        maxAllocatedBitrate = configuration.maxAllocatedBitrate ?? highestTargetTotal
        let queued = queueing.update(roundTrip)
        uplinkRoundTrip = roundTrip
        let sample = ConditionSample(lossFraction: loss, headroom: headroom(estimate: estimate, demand: maxAllocatedBitrate),
                                     bandwidthLimited: bandwidthLimited, estimate: estimate, videoOn: videoOn, hasMedia: hasMedia, queueing: queued)
        return scorer.receive(sample).last.map(NetworkConditionChange.init)
    }

    private mutating func videoQualityChanges(_ layers: [PublisherVideoLayerStats], limitations: [QualityLimitationReason]) -> [PublisherVideoEventReason] {
        defer { previousVideo = (layers, limitations) }
        guard let previous = previousVideo else { return [] }
        var reasons: [PublisherVideoEventReason] = []
        // Layers are ordered low to high, so the same set of rids is the same sequence.
        let sameLayers = previous.layers.count == layers.count && zip(previous.layers, layers).allSatisfy { $0.rid == $1.rid }
        if sameLayers, previous.limitations != limitations { reasons.append(.qualityLimitationChanged) }
        if !sameLayers { reasons.append(.layersChanged) }
        if let before = previous.layers.last, let now = layers.last, before.rid == now.rid, before.width != now.width || before.height != now.height {
            reasons.append(.resolutionChanged)
        }
        if let before = previous.layers.first?.codec, let now = layers.first?.codec, before != now { reasons.append(.codecChanged) }
        return reasons
    }

    /// The sender-stats message this link's latest report gives (what the publisher's SDK sends).
    func senderStatsMessage(sequence: Int, timestamp: Double, estimate: Double?, layers: [PublisherVideoLayerStats]) -> SenderStatsMessage {
        SenderStatsMessage(
            sequence: sequence, timestamp: timestamp, connectionMaxAllocatedBitrate: maxAllocatedBitrate,
            connectionEstimatedBandwidth: estimate, roundTripTime: uplinkRoundTrip, lossFraction: uplinkLossFraction,
            condition: scorer.condition == .unknown ? nil : scorer.condition, reason: scorer.condition == .unknown ? nil : scorer.reason,
            layers: layers.map { .init(width: $0.width, height: $0.height, bitrate: $0.bitrate, rid: $0.rid) })
    }

    /// W3C `bandwidth`/`cpu`/`other` win (they say what limits the encoder now); otherwise a codec
    /// switch, then a change of the sending layer set, then a resolution change.
    private static func limitationReason(_ entry: StatsEntry, previous: SenderMemory, layersChanged: Bool) -> QualityLimitationReason {
        let reported = QualityLimitationReason(w3c: entry.qualityLimitationReason)
        if reported != .none { return reported }
        if let before = previous.codecID, let now = entry.codecID, before != now { return .codec }
        if layersChanged { return .layerChange }
        if let before = previous.resolutionChanges, let now = entry.qualityLimitationResolutionChanges, now > before { return .resolution }
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
