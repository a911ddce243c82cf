import RTCStats

/// The entries of one remote stream within a receive connection's report.
struct SubscriberStreamEntries: Sendable, Hashable {
    /// The stream's `inbound-rtp` video entry, if any.
    var video: StatsEntry?
    /// The stream's `inbound-rtp` audio entry, if any.
    var audio: StatsEntry?

    /// Creates a grouping.
    init(video: StatsEntry?, audio: StatsEntry?) {
        self.video = video
        self.audio = audio
    }
}

/// The statistics one receive report produced for one subscribed stream.
struct SubscriberStreamUpdate: Sendable, Hashable {
    /// Video stats; `nil` when the stream has no video receiver.
    var video: SubscriberVideoNetworkStats?
    /// Audio stats; `nil` when the stream has no audio receiver.
    var audio: SubscriberAudioNetworkStats?
    /// Transport stats of the downlink.
    var mediaLink: SubscriberMediaLinkStats
    /// The condition change reported with this report (the downlink's, or the remote
    /// publisher's), when either adopted condition changed.
    var conditionChange: NetworkConditionChange?
    /// Why the video quality changed with this report (empty when it did not).
    var videoQualityChanges: [SubscriberVideoEventReason] = []
    /// The remote participant's connection quality, when its level changed with this report.
    var connectionQualityChanged: ConnectionQuality?
    /// The downlink as its counters alone score it, without the receive limit (what the layer
    /// policy decides on).
    var measuredDownlink = TransportStats.unknown
    /// Whether the publisher sends, as the subscriber can tell (see ``SourceSilenceDetector``).
    var source = PublisherSending.sending
    /// Relayed: the link's own condition, before it is attributed to either side (what the
    /// device's other links are judged against).
    var relayedLink: RelayedLinkAttribution.Judgement?
}

/// Turns the reports of one subscribed stream into session-aware statistics, across the peer
/// connections that carry it over time.
struct SubscriberStreamTracker: Sendable {
    private let configuration: StatsEngineConfiguration
    private var startTime: Double?
    private var lastReportTime: [String: Double] = [:]
    private var receivers: [SourceKey: ReceiverMemory] = [:]

    /// One receiver: an entry id on a peer connection.
    private struct SourceKey: Hashable, Sendable {
        var peerConnection: String
        var id: String
    }

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
    private var downlink: DownlinkConditionTracker
    private var silence = SourceSilenceDetector()
    /// A step-down the router made on its own (used only while no policy gives limits).
    private var routerStepDown = RouterStepDownDetector()
    /// Whether the remote uplink was last reported as stopped (a change is a condition change).
    private var reportedStopped = false
    private var remote: RemotePublisherView
    /// Relayed: what the publisher sends on the link, from its sender reports.
    private var remoteSendRate = RemoteSendRate()
    /// Relayed: the attribution last reported (a change is a condition change).
    private var reportedAttribution: RelayedLinkAttribution?
    private var watcher: SubscriberVideoWatcher
    private var connectionQuality = ConnectionQualityScorer()
    /// Queueing on the selected pair's round-trip time (a path that answers only after a queue
    /// is no evidence that it is healthy).
    private var pairQueueing: QueueingDetector
    /// The remote uplink as last reported (after the `.publisher` limit), and whether that
    /// limit applied then: a limit set or cleared is a condition change only when it changes it.
    private var reportedRemote: (condition: NetworkCondition, reason: NetworkConditionReason, limited: Bool)?
    /// The video was paused by the SDK (`.paused`) and has not decoded a frame since: the gap
    /// the browser counts when it resumes is ours, not a freeze.
    private var inOwnPause = false
    /// Values out of their physical bounds, dropped.
    private(set) var dropped = DroppedValues()

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
    init(configuration: StatsEngineConfiguration = .init()) {
        self.configuration = configuration
        self.stalls = FrameStallDetector(pauseThresholdMilliseconds: configuration.pauseThresholdMilliseconds)
        self.downlink = DownlinkConditionTracker(configuration: configuration)
        self.pairQueueing = QueueingDetector(threshold: configuration.queueingDelayMilliseconds)
        self.remote = RemotePublisherView(configuration: configuration)
        self.watcher = SubscriberVideoWatcher(pauseThresholdMilliseconds: configuration.pauseThresholdMilliseconds)
    }

    /// Feeds this stream's entries from one report of `peerConnection`. `report` is the whole
    /// report (for codec and legacy track lookups), `selectedPair` its candidate pair carrying
    /// media; `downlinkEstimate` the
    /// connection's bandwidth estimate (bps; `nil` when there is none yet); `senderStats` the sender-stats messages accepted
    /// from this stream's publisher; `limit` what the SDK's layer policy says limits the
    /// stream now (see ``SubscriberReceiveLimit``); `limitsGiven` whether a policy has given
    /// this stream limits at all (if not, a step-down the router made on its own is inferred:
    /// ``RouterStepDownDetector``). `relayedLinks` is `nil` on a routed connection; on a
    /// relayed one, the device's other fresh links (``RelayedLinkAttribution``): without
    /// sender stats, the publisher's side then comes from this link's own RTCP. Returns `nil`
    /// for a report whose timestamp is not after that connection's previous one.
    mutating func ingest(_ entries: SubscriberStreamEntries, in report: StatsReport, selectedPair: StatsEntry?, peerConnection: String,
                         connectionPreviousReport: Double? = nil, downlinkEstimate: Double?,
                         senderStats: ReceivedSenderStats? = nil, limit: SubscriberReceiveLimit = .none,
                         limitsGiven: Bool = false, relayedLinks: [RelayedLinkAttribution.Judgement]? = nil) -> SubscriberStreamUpdate? {
        guard let time = [entries.video?.timestamp, entries.audio?.timestamp].compactMap({ $0 }).max() else { return nil }
        if let last = lastReportTime[peerConnection], time <= last { return nil }
        lastReportTime[peerConnection] = time
        let start = startTime ?? time
        startTime = start

        // What had arrived by the report's time (live then judges a sample as its replay will).
        let senderStats = senderStats?.arrived(by: time)
        var remoteReading = remote.update(received: senderStats, at: time)
        applyPublisherLimit(limit, to: &remoteReading)
        // Our pause, or video switched off on purpose: the missing frames are no freeze.
        let paused = limit == .paused || limit == .videoOff
        if paused { inOwnPause = true }
        var video: SubscriberVideoNetworkStats?
        if let entry = entries.video {
            video = videoStats(entry, in: report, peerConnection: peerConnection, previousReport: connectionPreviousReport, start: start, paused: paused)
            video?.senderStats = remoteReading.senderStats
        }
        var audio: SubscriberAudioNetworkStats?
        if let entry = entries.audio {
            let source = SourceKey(peerConnection: peerConnection, id: entry.id)
            var memory = receivers[source] ?? ReceiverMemory()
            audioBytes.advance(&memory.bytes, to: entry.bytesReceived)
            audioPackets.advance(&memory.packets, to: entry.packetsReceived)
            audioLost.advance(&memory.lost, to: entry.packetsLost)
            receivers[source] = memory
            audio = SubscriberAudioNetworkStats(
                audioPacketsLost: audioLost.count, audioPacketsReceived: audioPackets.count, audioBytesReceived: audioBytes.count,
                timestamp: entry.timestamp, startTime: start, senderStats: remoteReading.senderStats)
        }

        // The downlink: demand is what the publisher sends for the layer we receive.
        let pairRoundTrip = dropped.check(selectedPair?.currentRoundTripTime.map { $0 * 1000 }, PhysicalBounds.delay, .delay)
        let jitter = dropped.check((entries.video?.jitter ?? entries.audio?.jitter).map { $0 * 1000 }, PhysicalBounds.delay, .delay)
        // Paused by the SDK: no video is asked for, so none is demanded.
        let demand = paused ? nil : video.flatMap { received in
            remoteReading.layers.min { abs($0.height - received.height) < abs($1.height - received.height) }?.bitrate
        }
        let silent = silence.update(audioPackets: entries.audio == nil ? nil : audioPackets.total + audioLost.total,
                                    videoPackets: entries.video == nil ? nil : videoPackets.total + videoLost.total,
                                    audioLost: entries.audio == nil ? nil : audioLost.total, videoLost: entries.video == nil ? nil : videoLost.total,
                                    selectedPair: selectedPair, roundTripQueued: pairQueueing.update(pairRoundTrip), videoHeld: paused)
        // No policy speaks for this stream: a router's own step-down is the downlink's limit.
        var downlinkLimit = limit
        if !limitsGiven, limit == .none,
           routerStepDown.update(receivedHeight: video?.height, offeredHeights: remoteReading.layers.map(\.height),
                                 downlink: downlink.measuredCondition.0) {
            downlinkLimit = .downlink
        }
        // Degraded by the publisher's own reports (a stopped source is judged as before).
        let remoteAlreadyDegraded = remoteReading.transport.networkCondition.isDegraded
        applySourceStop(to: &remoteReading)
        let localChange = downlink.update(
            lostTotal: videoLost.total + audioLost.total, receivedTotal: videoPackets.total + audioPackets.total,
            time: time, senderStats: remoteReading.senderStats == nil ? nil : senderStats, estimate: downlinkEstimate ?? 0, demand: demand,
            roundTrip: pairRoundTrip, jitter: jitter, videoOn: video != nil && !paused,
            remoteDegraded: remoteReading.transport.networkCondition.isDegraded, remoteAlreadyDegraded: remoteAlreadyDegraded,
            limit: downlinkLimit, silence: silent)
        var (condition, reason) = downlink.transportCondition
        var relayedLink: RelayedLinkAttribution.Judgement?
        if let relayedLinks {
            let link = RelayedLinkAttribution.Judgement(condition: condition, reason: reason)
            relayedLink = link
            let sendRate = remoteSendRate.update(inbound: [entries.video, entries.audio].compactMap { $0 }, in: report)
            if remoteReading.senderStats == nil {
                (condition, reason) = attribute(link, among: relayedLinks, sendRate: sendRate, to: &remoteReading)
            }
        }
        let transport = TransportStats(estimate: downlinkEstimate, networkCondition: condition, networkConditionReason: reason)

        var qualityChanges: [SubscriberVideoEventReason] = []
        var videoPoor = false
        // Our own pause: the missing video is no quality event and no sign of a poor network.
        if let video, let entry = entries.video, !paused {
            let frames = entry.number(.framesDecoded, orFrom: report.legacyTrack(of: entry))
            (qualityChanges, videoPoor) = watcher.update(time: time, frames: frames, width: video.width, height: video.height, codec: video.codec,
                                                         frameRate: video.decodedFrameRate, lossFraction: downlink.receivedLossFraction)
        }
        let source = NetworkDegradationSource.classify(local: condition, remote: remoteReading.transport.networkCondition, videoPoor: videoPoor)
        let mediaLink = SubscriberMediaLinkStats(transport: transport, remotePublisherTransport: remoteReading.transport, networkDegradationSource: source)

        // Connection quality of the remote participant: the whole path, ours plus the publisher's.
        var qualityChange: ConnectionQuality?
        if let rtt = pairRoundTrip {
            let totalRoundTrip = rtt + (remoteReading.roundTrip ?? 0)
            let audioJitter = dropped.check((entries.audio?.jitter ?? entries.video?.jitter).map { $0 * 1000 }, PhysicalBounds.delay, .delay) ?? 0
            qualityChange = connectionQuality.receive(roundTripMilliseconds: totalRoundTrip, jitterMilliseconds: audioJitter,
                                                      lossPercent: 100 * (downlink.receivedLossFraction ?? 0))
        }
        // The reason reported is the downlink's when it is degraded (or the publisher's uplink
        // is not), else the publisher's: what the app should act on.
        var conditionChange: NetworkConditionChange?
        if localChange != nil || remoteReading.conditionChanged {
            let local = mediaLink.transport, remote = mediaLink.remotePublisherTransport
            let reason = local.networkCondition.isDegraded || !remote.networkCondition.isDegraded ? local.networkConditionReason : remote.networkConditionReason
            conditionChange = NetworkConditionChange(condition: local.networkCondition, reason: reason)
        }
        let measured = downlink.measuredCondition
        return SubscriberStreamUpdate(video: video, audio: audio, mediaLink: mediaLink,
                                      conditionChange: conditionChange,
                                      videoQualityChanges: qualityChanges, connectionQualityChanged: qualityChange,
                                      measuredDownlink: TransportStats(estimate: downlinkEstimate,
                                                                       networkCondition: measured.0, networkConditionReason: measured.1),
                                      source: silence.sourceStopped ? .stopped : silence.videoStopped ? .videoStopped : silence.videoStarved ? .videoStarved : .sending,
                                      relayedLink: relayedLink)
    }

    /// A relayed link without sender stats: its publisher's side as the link's own RTCP and the
    /// device's other links show it (a stopped source stays as ``applySourceStop(to:)`` set
    /// it). Returns the downlink's side; a new attribution is a condition change.
    private mutating func attribute(_ link: RelayedLinkAttribution.Judgement, among otherLinks: [RelayedLinkAttribution.Judgement],
                                    sendRate: Double?, to reading: inout RemotePublisherView.Reading) -> (NetworkCondition, NetworkConditionReason) {
        let attribution = RelayedLinkAttribution(link: link, otherLinks: otherLinks)
        let stopped = RelayedLinkAttribution.Judgement(condition: reading.transport.networkCondition, reason: reading.transport.networkConditionReason)
        let remote = silence.sourceStopped ? stopped : attribution.remote
        reading.transport = TransportStats(estimate: sendRate, networkCondition: remote.condition, networkConditionReason: remote.reason)
        if let reported = reportedAttribution, reported != attribution { reading.conditionChanged = true }
        reportedAttribution = attribution
        return (attribution.local.condition, attribution.local.reason)
    }

    /// While the publisher has stopped sending (its stream silent, our path alive), its side is
    /// what fails: the remote uplink is `critical`, reason `unknown` (no loss and no rate says
    /// why: it crashed, left without a word, or lost its uplink), so the source is `remote`.
    /// Stopping and resuming are condition changes.
    private mutating func applySourceStop(to reading: inout RemotePublisherView.Reading) {
        let stopped = silence.sourceStopped
        if stopped {
            reading.transport.networkCondition = .critical
            reading.transport.networkConditionReason = .unknown
        }
        if stopped != reportedStopped { reading.conditionChanged = true }
        reportedStopped = stopped
    }

    /// Under `.publisher` the remote uplink is at least `warning` / `bandwidth`: the publisher
    /// offers no more because its uplink dropped its top layers (the router's fallback), whether
    /// or not sender stats say so. Setting or clearing the limit is a condition change when it
    /// changes the level or reason reported.
    private mutating func applyPublisherLimit(_ limit: SubscriberReceiveLimit, to reading: inout RemotePublisherView.Reading) {
        let limited = limit == .publisher
        if limited, reading.transport.networkCondition != .critical {
            reading.transport.networkCondition = .warning
            reading.transport.networkConditionReason = .bandwidth
        }
        let now = (reading.transport.networkCondition, reading.transport.networkConditionReason, limited)
        if let before = reportedRemote, before.limited || limited {
            reading.conditionChanged = (before.condition, before.reason) != (now.0, now.1)
        }
        reportedRemote = now
    }

    /// `previousReport`: the connection's previous report time (any stream's); a receiver first seen after it
    /// started within that interval, so its first values count against zero over it.
    /// `paused`: the SDK paused this video (`.paused`); a gap in frames it causes counts as a
    /// pause when it lasts past the pause threshold (docs/spec/observability.md §3), never as a freeze.
    private mutating func videoStats(_ entry: StatsEntry, in report: StatsReport, peerConnection: String, previousReport: Double?, start: Double,
                                     paused: Bool = false) -> SubscriberVideoNetworkStats {
        let source = SourceKey(peerConnection: peerConnection, id: entry.id)
        var memory = receivers[source] ?? ReceiverMemory()
        let track = report.legacyTrack(of: entry)
        let isNew = memory.timestamp == nil && previousReport != nil
        let elapsed = RateCalculator.usableInterval(from: memory.timestamp ?? previousReport, to: entry.timestamp, maximumGap: configuration.maximumRateGapMilliseconds)
        memory.timestamp = entry.timestamp
        var payload = videoBytes.advance(&memory.bytes, to: entry.bytesReceived)
        var header = CounterTotal.increase(&memory.headerBytes, to: entry.headerBytesReceived)
        if isNew {
            payload = memory.bytes
            header = memory.headerBytes
        }
        videoPackets.advance(&memory.packets, to: entry.packetsReceived)
        videoLost.advance(&memory.lost, to: entry.packetsLost)
        let framesDecoded = entry.number(.framesDecoded, orFrom: track) ?? entry.number(.framesReceived, orFrom: track)
        let frames = CounterTotal.increase(&memory.frames, to: framesDecoded)

        let bitrate = dropped.check(RateCalculator.bitsPerSecond(bytes: payload, milliseconds: elapsed), PhysicalBounds.bitrate, .bitrate)
        let headerRate = entry.headerBytesReceived == nil ? 0 : dropped.check(RateCalculator.bitsPerSecond(bytes: header, milliseconds: elapsed), PhysicalBounds.bitrate, .bitrate)
        let frameRate = dropped.check(entry.framesPerSecond, PhysicalBounds.frameRate, .frameRate)
            ?? dropped.check(RateCalculator.perSecond(frames, milliseconds: elapsed), PhysicalBounds.frameRate, .frameRate)

        // Our own pause lasts until the first report that decodes frames again: the browser
        // counts the gap on that report.
        let ownGap = inOwnPause
        if !paused, (frames ?? 0) > 0 { inOwnPause = false }
        // W3C counters when the report has them (seconds → ms); frame-counter fallback otherwise.
        if let freezes = entry.number(.freezeCount, orFrom: track) {
            usesW3CFreezeCounters = true
            let freezeDuration = entry.number(.totalFreezesDuration, orFrom: track).map { $0 * 1000 }
            if ownGap {
                // Follow the counters without adding: the gap we caused is no freeze.
                _ = CounterTotal.increase(&memory.freezes, to: freezes)
                _ = CounterTotal.increase(&memory.freezeDuration, to: freezeDuration)
            } else {
                w3cFreezes.advance(&memory.freezes, to: freezes)
                w3cFreezeDuration.advance(&memory.freezeDuration, to: freezeDuration)
            }
            w3cPauses.advance(&memory.pauses, to: entry.number(.pauseCount, orFrom: track))
            w3cPauseDuration.advance(&memory.pauseDuration, to: entry.number(.totalPausesDuration, orFrom: track).map { $0 * 1000 })
        } else if let framesDecoded {
            stalls.update(time: entry.timestamp, frames: framesDecoded, countsFreezes: !ownGap)
        }
        receivers[source] = memory
        let pauseCount = usesW3CFreezeCounters ? w3cPauses.total.clampedInt : stalls.pauseCount
        let pausesDuration = usesW3CFreezeCounters ? w3cPauseDuration.total : stalls.totalPausesDuration
        let freezeCount = usesW3CFreezeCounters ? w3cFreezes.total.clampedInt : stalls.freezeCount
        let freezesDuration = usesW3CFreezeCounters ? w3cFreezeDuration.total : stalls.totalFreezesDuration

        return SubscriberVideoNetworkStats(
            videoPacketsLost: videoLost.count, videoPacketsReceived: videoPackets.count, videoBytesReceived: videoBytes.count,
            timestamp: entry.timestamp, startTime: start, senderStats: nil,
            width: (entry.number(.frameWidth, orFrom: track) ?? 0).pixels,
            height: (entry.number(.frameHeight, orFrom: track) ?? 0).pixels,
            decodedFrameRate: frameRate ?? 0,
            bitrate: bitrate ?? 0,
            totalBitrate: bitrate.map { $0 + (headerRate ?? 0) } ?? 0,
            pauseCount: pauseCount, totalPausesDuration: pausesDuration,
            freezeCount: freezeCount, totalFreezesDuration: freezesDuration,
            codec: report.codecName(of: entry),
            unmeasured: UnmeasuredValues(bitrate: bitrate, frameRate: frameRate))
    }
}
