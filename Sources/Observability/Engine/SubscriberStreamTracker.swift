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
    private var lastVideoTime: [String: Double] = [:]

    private var videoBytes = CumulativeCounter()
    private var videoHeaderBytes = CumulativeCounter()
    private var videoPackets = CumulativeCounter()
    private var videoLost = CumulativeCounter()
    private var videoFrames = CumulativeCounter()
    private var audioBytes = CumulativeCounter()
    private var audioPackets = CumulativeCounter()
    private var audioLost = CumulativeCounter()
    private var w3cPauses = CumulativeCounter()
    private var w3cPauseDuration = CumulativeCounter()
    private var w3cFreezes = CumulativeCounter()
    private var w3cFreezeDuration = CumulativeCounter()
    private var stalls: FrameStallDetector
    private var usesW3CFreezeCounters = false

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
            audioBytes.update(source: source, value: entry.bytesReceived)
            audioPackets.update(source: source, value: entry.packetsReceived)
            audioLost.update(source: source, value: entry.packetsLost)
            audio = SubscriberAudioNetworkStats(
                audioPacketsLost: audioLost.count, audioPacketsReceived: audioPackets.count, audioBytesReceived: audioBytes.count,
                timestamp: entry.timestamp, startTime: start, senderStats: nil)
        }
        let mediaLink = SubscriberMediaLinkStats(transport: downlink, remotePublisherTransport: .unknown, networkDegradationSource: .unknown)
        return SubscriberStreamUpdate(video: video, audio: audio, mediaLink: mediaLink)
    }

    private mutating func videoStats(_ entry: StatsEntry, in report: StatsReport, peerConnection: String, start: Double) -> SubscriberVideoNetworkStats {
        let source = peerConnection + "|" + entry.id
        let track = report.legacyTrack(of: entry)
        let elapsed = lastVideoTime[source].map { entry.timestamp - $0 }.flatMap { $0 > 0 && $0 <= configuration.maximumRateGapMilliseconds ? $0 : nil }
        lastVideoTime[source] = entry.timestamp
        let payload = videoBytes.update(source: source, value: entry.bytesReceived)
        let header = videoHeaderBytes.update(source: source, value: entry.headerBytesReceived)
        videoPackets.update(source: source, value: entry.packetsReceived)
        videoLost.update(source: source, value: entry.packetsLost)
        let framesDecoded = entry.number("framesDecoded", orFrom: track) ?? entry.number("framesReceived", orFrom: track)
        let frames = videoFrames.update(source: source, value: framesDecoded)

        let bitrate = RateCalculator.bitsPerSecond(bytes: payload, milliseconds: elapsed)
        let headerRate = entry.headerBytesReceived == nil ? 0 : RateCalculator.bitsPerSecond(bytes: header, milliseconds: elapsed)

        // W3C counters when the report has them (seconds → ms); frame-counter fallback otherwise.
        if let freezes = entry.number("freezeCount", orFrom: track) {
            usesW3CFreezeCounters = true
            w3cFreezes.update(source: source, value: freezes)
            w3cFreezeDuration.update(source: source, value: entry.number("totalFreezesDuration", orFrom: track).map { $0 * 1000 })
            w3cPauses.update(source: source, value: entry.number("pauseCount", orFrom: track))
            w3cPauseDuration.update(source: source, value: entry.number("totalPausesDuration", orFrom: track).map { $0 * 1000 })
        } else if let framesDecoded {
            stalls.update(time: entry.timestamp, frames: framesDecoded)
        }
        let pauseCount = usesW3CFreezeCounters ? Int(w3cPauses.count) : stalls.pauseCount
        let pausesDuration = usesW3CFreezeCounters ? w3cPauseDuration.total : stalls.totalPausesDuration
        let freezeCount = usesW3CFreezeCounters ? Int(w3cFreezes.count) : stalls.freezeCount
        let freezesDuration = usesW3CFreezeCounters ? w3cFreezeDuration.total : stalls.totalFreezesDuration

        return SubscriberVideoNetworkStats(
            videoPacketsLost: videoLost.count, videoPacketsReceived: videoPackets.count, videoBytesReceived: videoBytes.count,
            timestamp: entry.timestamp, startTime: start, senderStats: nil,
            width: Int(entry.number("frameWidth", orFrom: track) ?? 0),
            height: Int(entry.number("frameHeight", orFrom: track) ?? 0),
            decodedFrameRate: entry.framesPerSecond ?? RateCalculator.perSecond(frames, milliseconds: elapsed) ?? 0,
            bitrate: bitrate ?? 0,
            totalBitrate: bitrate.map { $0 + (headerRate ?? 0) } ?? 0,
            pauseCount: pauseCount, totalPausesDuration: pausesDuration,
            freezeCount: freezeCount, totalFreezesDuration: freezesDuration,
            codec: report.codecName(of: entry))
    }
}
