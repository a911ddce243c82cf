import RTCStats

/// The entries of one remote stream within a receive connection's report.
public struct SubscriberStreamEntries: Sendable, Hashable {
    /// The stream's `inbound-rtp` video entry, if any.
    public var video: StatsEntry?
    /// The stream's `inbound-rtp` audio entry, if any.
    public var audio: StatsEntry?

    /// Creates a grouping.
    public init(video: StatsEntry?, audio: StatsEntry?) {
        self.video = video
        self.audio = audio
    }
}

/// The statistics one receive report produced for one subscribed stream.
public struct SubscriberStreamUpdate: Sendable, Hashable {
    /// Video stats; `nil` when the stream has no video receiver.
    public var video: SubscriberVideoNetworkStats?
    /// Audio stats; `nil` when the stream has no audio receiver.
    public var audio: SubscriberAudioNetworkStats?
    /// Transport stats of the downlink.
    public var mediaLink: SubscriberMediaLinkStats
}

/// Turns the reports of one subscribed stream into session-aware statistics, across the peer
/// connections that carry it over time.
public struct SubscriberStreamTracker: Sendable {
    private let configuration: StatsEngineConfiguration
    private var startTime: Double?
    private var lastReportTime: [String: Double] = [:]
    private var receivers: [String: ReceiverMemory] = [:]

    private var videoBytes = CounterTotal()
    private var videoPackets = CounterTotal()
    private var videoLost = CounterTotal()
    private var audioBytes = CounterTotal()
    private var audioPackets = CounterTotal()
    private var audioLost = CounterTotal()
    private var w3cPauses = CounterTotal()
    private var w3cPauseDuration = CounterTotal()
    private var w3cFreezes = CounterTotal()
    private var w3cFreezeDuration = CounterTotal()
    private var stalls: FrameStallDetector
    private var usesW3CFreezeCounters = false

    /// One receiver's previous values (keyed by connection and entry id).
    private struct ReceiverMemory: Sendable {
        var timestamp: Double?
        var bytes: Double?
        var headerBytes: Double?
        var packets: Double?
        var lost: Double?
        var frames: Double?
        var freezes: Double?
        var freezeDuration: Double?
        var pauses: Double?
        var pauseDuration: Double?
    }

    /// Creates a tracker.
    public init(configuration: StatsEngineConfiguration = .init()) {
        self.configuration = configuration
        self.stalls = FrameStallDetector(pauseThresholdMilliseconds: configuration.pauseThresholdMilliseconds)
    }

    /// Feeds this stream's entries from one report of `peerConnection`. `report` is the whole
    /// report (for codec and legacy track lookups); `downlink` the connection's transport stats.
    /// Returns `nil` for a report whose timestamp is not after that connection's previous one.
    public mutating func ingest(_ entries: SubscriberStreamEntries, in report: StatsReport, peerConnection: String, downlink: TransportStats) -> SubscriberStreamUpdate? {
        guard let time = [entries.video?.timestamp, entries.audio?.timestamp].compactMap({ $0 }).max() else { return nil }
        if let last = lastReportTime[peerConnection], time <= last { return nil }
        lastReportTime[peerConnection] = time
        let start = startTime ?? time
        startTime = start

        var video: SubscriberVideoNetworkStats?
        if let entry = entries.video {
            video = videoStats(entry, in: report, peerConnection: peerConnection, start: start)
        }
        var audio: SubscriberAudioNetworkStats?
        if let entry = entries.audio {
            let source = peerConnection + "|" + entry.id
            var memory = receivers[source] ?? ReceiverMemory()
            audioBytes.advance(&memory.bytes, to: entry.bytesReceived)
            audioPackets.advance(&memory.packets, to: entry.packetsReceived)
            audioLost.advance(&memory.lost, to: entry.packetsLost)
            receivers[source] = memory
            audio = SubscriberAudioNetworkStats(
                audioPacketsLost: audioLost.count, audioPacketsReceived: audioPackets.count, audioBytesReceived: audioBytes.count,
                timestamp: entry.timestamp, startTime: start, senderStats: nil)
        }
        let mediaLink = SubscriberMediaLinkStats(transport: downlink, remotePublisherTransport: .unknown, networkDegradationSource: .unknown)
        return SubscriberStreamUpdate(video: video, audio: audio, mediaLink: mediaLink)
    }

    private mutating func videoStats(_ entry: StatsEntry, in report: StatsReport, peerConnection: String, start: Double) -> SubscriberVideoNetworkStats {
        let source = peerConnection + "|" + entry.id
        var memory = receivers[source] ?? ReceiverMemory()
        let track = report.legacyTrack(of: entry)
        let elapsed = RateCalculator.usableInterval(from: memory.timestamp, to: entry.timestamp, maximumGap: configuration.maximumRateGapMilliseconds)
        memory.timestamp = entry.timestamp
        let payload = videoBytes.advance(&memory.bytes, to: entry.bytesReceived)
        let header = CounterTotal.increase(&memory.headerBytes, to: entry.headerBytesReceived)
        videoPackets.advance(&memory.packets, to: entry.packetsReceived)
        videoLost.advance(&memory.lost, to: entry.packetsLost)
        let framesDecoded = entry.number(.framesDecoded, orFrom: track) ?? entry.number(.framesReceived, orFrom: track)
        let frames = CounterTotal.increase(&memory.frames, to: framesDecoded)

        let bitrate = RateCalculator.bitsPerSecond(bytes: payload, milliseconds: elapsed)
        let headerRate = entry.headerBytesReceived == nil ? 0 : RateCalculator.bitsPerSecond(bytes: header, milliseconds: elapsed)

        // W3C counters when the report has them (seconds → ms); frame-counter fallback otherwise.
        if let freezes = entry.number(.freezeCount, orFrom: track) {
            usesW3CFreezeCounters = true
            w3cFreezes.advance(&memory.freezes, to: freezes)
            w3cFreezeDuration.advance(&memory.freezeDuration, to: entry.number(.totalFreezesDuration, orFrom: track).map { $0 * 1000 })
            w3cPauses.advance(&memory.pauses, to: entry.number(.pauseCount, orFrom: track))
            w3cPauseDuration.advance(&memory.pauseDuration, to: entry.number(.totalPausesDuration, orFrom: track).map { $0 * 1000 })
        } else if let framesDecoded {
            stalls.update(time: entry.timestamp, frames: framesDecoded)
        }
        receivers[source] = memory
        let pauseCount = usesW3CFreezeCounters ? Int(w3cPauses.count) : stalls.pauseCount
        let pausesDuration = usesW3CFreezeCounters ? w3cPauseDuration.total : stalls.totalPausesDuration
        let freezeCount = usesW3CFreezeCounters ? Int(w3cFreezes.count) : stalls.freezeCount
        let freezesDuration = usesW3CFreezeCounters ? w3cFreezeDuration.total : stalls.totalFreezesDuration

        return SubscriberVideoNetworkStats(
            videoPacketsLost: videoLost.count, videoPacketsReceived: videoPackets.count, videoBytesReceived: videoBytes.count,
            timestamp: entry.timestamp, startTime: start, senderStats: nil,
            width: Int(entry.number(.frameWidth, orFrom: track) ?? 0),
            height: Int(entry.number(.frameHeight, orFrom: track) ?? 0),
            decodedFrameRate: entry.framesPerSecond ?? RateCalculator.perSecond(frames, milliseconds: elapsed) ?? 0,
            bitrate: bitrate ?? 0,
            totalBitrate: bitrate.map { $0 + (headerRate ?? 0) } ?? 0,
            pauseCount: pauseCount, totalPausesDuration: pausesDuration,
            freezeCount: freezeCount, totalFreezesDuration: freezesDuration,
            codec: report.codecName(of: entry))
    }
}
