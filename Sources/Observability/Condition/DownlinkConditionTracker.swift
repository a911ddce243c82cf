/// Scores a subscriber's downlink from its receive counters (docs/spec/observability.md §5):
/// loss over the interval,
/// minus what the sender stats say was lost upstream; headroom against the bitrate the publisher
/// sends for the received layer (when the sender stats list layers); queueing from RTT or jitter
/// rising above their lowest, or from throughput collapsing while packets are lost. An interval
/// with no packet at all after media flowed counts as total loss (a blackout shows no lost
/// packets until media returns) only when the selected pair says the path is down
/// (``PathEvidence/dead``); when it says the path still delivers (``PathEvidence/alive``), the
/// publisher stopped sending and the interval is not scored at all: no loss, no bandwidth (a
/// rate with nothing offered says nothing of capacity). Without evidence either way by the time
/// the interval is judged, it is not scored either.
///
/// Sender stats carry the loss the publisher learnt from its receiver reports, which reach it
/// about an interval after the subscriber saw the gap, and the message leaves on the next
/// interval tick: on real calls (Janus, 1 s) the upstream figure for a burst arrives up to two
/// intervals after the subscriber counted it. So each interval is judged `lookahead` samples
/// later (default 2), with the mean upstream loss reported meanwhile: a burst lost on the
/// publisher's uplink is not blamed on this downlink, while one stray upstream report does not
/// hide steady local loss. The cost is two intervals of detection delay.
///
/// Two scorers judge each interval. `scorer` sees the samples as they are: what the counters
/// say (the layer policy reads it, so that a limit it set never feeds back into its own
/// decisions). `reported` (what the app sees) also knows the ``SubscriberReceiveLimit`` the
/// policy set: under `.downlink` and `.paused` (audio fallback) a sample is scored no better than `warning` / `bandwidth` (after a
/// step-down the loss is gone but the downlink is still the limit), and from the first
/// `.downlink` or `.paused` until the reported condition has recovered with no limit set (an
/// impairment episode the policy manages by probing), `critical` needs `recoverAfter`
/// consecutive samples instead of one: the burst of a failed up-switch or video probe (the
/// policy trying, then stepping back within its two bad intervals) is not a new condition,
/// while an impairment that outlasts the policy's reaction still is. `.publisher` starts no
/// episode: the policy follows the router there and does not probe this downlink.
struct DownlinkConditionTracker: Sendable {
    private(set) var scorer: ConditionScorer
    /// The scorer of what the app sees (the limit applied).
    private var reported: ConditionScorer
    /// Inside an impairment episode the policy manages (see the type's documentation).
    private var managedEpisode = false
    private var lastTotals: (lost: Double, received: Double)?
    private var roundTripQueueing: QueueingDetector
    private var jitterQueueing: QueueingDetector
    /// The interval's loss fraction as received (before the upstream discount).
    private(set) var receivedLossFraction: Double?

    init(configuration: StatsEngineConfiguration) {
        scorer = ConditionScorer(thresholds: configuration.thresholds)
        reported = scorer
        roundTripQueueing = QueueingDetector(threshold: configuration.queueingDelayMilliseconds)
        jitterQueueing = QueueingDetector(threshold: configuration.queueingDelayMilliseconds)
        lossWindow = max(1, configuration.downlinkLossWindow)
    }

    /// The condition the app sees: the receive limit applied.
    var transportCondition: (NetworkCondition, NetworkConditionReason) { (reported.condition, reported.reason) }
    /// The condition the counters alone give (no limit applied).
    var measuredCondition: (NetworkCondition, NetworkConditionReason) { (scorer.condition, scorer.reason) }

    private struct Interval {
        var start: Double
        var lost: Double
        var expected: Double
        var blackout: Bool
        /// What the pair said of the path in this interval (for a blackout).
        var path: PathEvidence?
        var sample: ConditionSample
    }
    /// Intervals already judged, newest last, for the loss window.
    private var judgedHistory: [Interval] = []
    private let lossWindow: Int
    private var lastTime: Double?
    private var pending: [Interval] = []
    /// Packets received per interval, the last ten.
    private var recentReceived: [Double] = []
    private var hadMedia = false
    private let lookahead = 2
    /// Reports in a row, up to this one, on which the remote uplink was already degraded.
    private var remoteDegradedReports = 0

    /// Feeds one interval; returns the newly adopted reported condition when it changed (judging
    /// the interval `lookahead` samples back, under the `limit` in force now).
    ///
    /// `remoteAlreadyDegraded`: the remote publisher's uplink is degraded by what its own
    /// reports (or the `.publisher` limit) say. Once it has been so for more than `lookahead`
    /// reports in a row, the lookahead drops to zero and every waiting interval is judged now:
    /// the wait exists so that an upstream burst is not called `local`, but with the remote
    /// side steadily degraded, loss the upstream figures do not explain leaves the source
    /// `bothOrUnclear` at worst, which is what such a sample is. Not at the remote's onset:
    /// the reports of its first burst arrive up to two intervals after the burst itself.
    mutating func update(lostTotal: Double, receivedTotal: Double, time: Double, senderStats: ReceivedSenderStats?, estimate: Double, demand: Double?,
                         roundTrip: Double?, jitter: Double?, videoOn: Bool, remoteDegraded: Bool = false, remoteAlreadyDegraded: Bool = false,
                         limit: SubscriberReceiveLimit = .none, silence: SourceSilenceDetector.Reading? = nil) -> NetworkConditionChange? {
        var loss: Double?
        var hasMedia = false
        var lost = 0.0
        var received = 0.0
        if let last = lastTotals {
            // A stopped kind's sequence gap, counted when it returns, is not this downlink's loss.
            lost = max(0, lostTotal - last.lost - (silence?.stopGapLost ?? 0))
            received = max(0, receivedTotal - last.received)
            hasMedia = received > 0
            if silence?.resumedAfterStop == true {
                // The stopped source's sequence gap, counted when its packets return: not ours.
                lost = 0
                loss = nil
            } else if lost + received > 0 {
                loss = lost / (lost + received)
            } else if hadMedia {
                loss = 1
            }
        }
        lastTotals = (lostTotal, receivedTotal)
        if hasMedia { hadMedia = true }
        receivedLossFraction = loss
        // Both detectors see every reading, so each keeps its own lowest.
        let roundTripQueued = roundTripQueueing.update(roundTrip)
        var queueing = jitterQueueing.update(jitter) || roundTripQueued
        // Throughput collapsing while packets are lost is a cap (random loss only removes its
        // own share): fewer than 70 % of the recent peak of packets arrived — unless the
        // publisher's own uplink is degraded, which lowers what is sent in the first place.
        if !remoteDegraded, received > 0, let lossFraction = loss, lossFraction >= 0.05, let peak = recentReceived.max(), received < 0.7 * peak { queueing = true }
        if lastTotals != nil, hasMedia {
            recentReceived.append(received)
            if recentReceived.count > 10 { recentReceived.removeFirst() }
        }
        let sample = ConditionSample(lossFraction: loss, headroom: estimate > 0 ? headroom(estimate: estimate, demand: demand) : nil, estimate: estimate > 0 ? estimate : nil,
                                     videoOn: videoOn, hasMedia: hasMedia || loss == 1, queueing: queueing)
        pending.append(Interval(start: lastTime ?? time, lost: lost, expected: lost + received, blackout: loss == 1 && lost == 0,
                                path: silence?.path, sample: sample))
        lastTime = time
        var change: NetworkConditionChange?
        remoteDegradedReports = remoteAlreadyDegraded ? remoteDegradedReports + 1 : 0
        while pending.count > (remoteDegradedReports > lookahead ? 0 : lookahead) {
            if let adopted = judgeOldest(senderStats: senderStats, limit: limit, silence: silence) { change = adopted }
        }
        return change
    }

    /// Judges the oldest waiting interval (see ``update``); returns the newly adopted reported
    /// condition when it changed.
    private mutating func judgeOldest(senderStats: ReceivedSenderStats?, limit: SubscriberReceiveLimit,
                                      silence: SourceSilenceDetector.Reading?) -> NetworkConditionChange? {
        var judged = pending.removeFirst()
        // The path delivered (or nothing says it did not): the source stopped. No loss, no
        // capacity, no media: the interval leaves the condition as it was.
        let sourceSilent = judged.blackout && silence != nil && Self.pathOf(judged, later: pending) != .dead
        if sourceSilent { judged.sample = ConditionSample(lossFraction: nil, headroom: nil, estimate: nil, videoOn: false, hasMedia: false) }
        judgedHistory.append(judged)
        if judgedHistory.count > lossWindow { judgedHistory.removeFirst(judgedHistory.count - lossWindow) }
        // Loss over the last `lossWindow` intervals (a blackout interval is total loss on its own).
        let expected = judgedHistory.reduce(0) { $0 + $1.expected }
        if !judged.blackout, !sourceSilent, expected > 0 {
            var total = judgedHistory.reduce(0) { $0 + $1.lost } / expected
            // Loss that arrived already lost is the publisher's: (p − u) / (1 − u), with u the
            // mean upstream loss reported since the window began.
            if let upstream = senderStats?.meanLoss(after: judgedHistory[0].start), upstream < 1 {
                total = max(0, (total - upstream) / (1 - upstream))
            }
            judged.sample.lossFraction = total
        }
        _ = scorer.receive(judged.sample)
        if limit == .downlink || limit == .paused { managedEpisode = true }
        // Audio fallback is the deepest step-down: the downlink is still the limit.
        let floor = limit == .downlink || limit == .paused ? ConditionLevel(condition: .warning, reason: .bandwidth) : nil
        let change = reported.receive(judged.sample, floor: floor, criticalAfter: managedEpisode ? scorer.thresholds.recoverAfter : nil)
        if limit == .none, !reported.condition.isDegraded { managedEpisode = false }
        return change.last.map(NetworkConditionChange.init)
    }

    /// What the pair said of the path in a silent interval: its own evidence, else the first
    /// of the intervals after it (up to now).
    private static func pathOf(_ interval: Interval, later: [Interval]) -> PathEvidence? {
        interval.path ?? later.lazy.compactMap(\.path).first
    }
}
