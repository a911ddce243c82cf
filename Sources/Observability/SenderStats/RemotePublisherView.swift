/// What a subscriber knows of its remote publisher's uplink, from the sender-stats messages it
/// received: the publisher's `SenderStats`, its uplink condition (the publisher's own, when the
/// message carries it, otherwise scored here from the message's loss, estimate and RTT with the
/// same scorer), and the loss that happened upstream.
struct RemotePublisherView: Sendable {
    private var scorer: ConditionScorer
    private var queueing: QueueingDetector
    private let lifetime: Double

    init(configuration: StatsEngineConfiguration) {
        scorer = ConditionScorer(thresholds: configuration.thresholds)
        lifetime = configuration.senderStatsLifetimeMilliseconds
        queueing = QueueingDetector(threshold: configuration.queueingDelayMilliseconds)
    }

    struct Reading: Sendable {
        /// `nil` when no fresh message.
        var senderStats: SenderStats?
        var transport: TransportStats
        var upstreamLossFraction: Double?
        var layers: [SenderStatsMessage.Layer]
        var roundTrip: Double?
        var conditionChanged: Bool
    }

    /// The view at `time` given the messages received. Going stale (or coming back) is not
    /// reported as a condition change: it says nothing new about the network.
    mutating func update(received: ReceivedSenderStats?, at time: Double) -> Reading {
        guard let latest = received?.latest, time - latest.receivedAt <= lifetime else {
            // Stale or absent: unknown, and the scorer starts over when messages return.
            scorer = ConditionScorer(thresholds: scorer.thresholds)
            return Reading(senderStats: nil, transport: .unknown, upstreamLossFraction: nil, layers: [], roundTrip: nil, conditionChanged: false)
        }
        let message = latest.message
        // A scorer that had no condition yet reports none: coming back says nothing new.
        let wasKnown = scorer.condition != .unknown
        var changed = false
        var transport: TransportStats
        if let condition = message.condition {
            transport = TransportStats(estimate: message.connectionEstimatedBandwidth, networkCondition: condition,
                                       networkConditionReason: message.reason ?? (condition >= .good ? .none : .unknown))
        } else {
            let queued = queueing.update(message.roundTripTime)
            // Receiver-report loss fractions are noisy per message: use the last three.
            let loss = received?.recentMeanLoss(count: 3) ?? message.lossFraction
            let ratio = headroom(estimate: message.connectionEstimatedBandwidth, demand: message.connectionMaxAllocatedBitrate)
            changed = !scorer.receive(ConditionSample(lossFraction: loss, headroom: ratio, estimate: message.connectionEstimatedBandwidth,
                                                      videoOn: true, hasMedia: true, queueing: queued)).isEmpty && wasKnown
            transport = TransportStats(estimate: message.connectionEstimatedBandwidth,
                                       networkCondition: scorer.condition, networkConditionReason: scorer.reason)
        }
        return Reading(senderStats: message.senderStats, transport: transport, upstreamLossFraction: message.lossFraction,
                       layers: message.layers, roundTrip: message.roundTripTime, conditionChanged: changed)
    }
}
