import Observability
import RTCStats

/// One subscriber's layer choice between stats intervals: the ``LayerPolicy`` and what feeds
/// it, as a value. Each interval it takes what the subscriber's monitor read (downlink
/// condition, decoded frames, the video's packet counters), the connection's received bytes
/// and the publisher's latest sender stats (its layers, whether it allows audio fallback,
/// whether its camera is on); out come the router configurations, the subscriber's events and
/// the receive limit for the monitor.
///
/// The estimate the policy is given is what the downlink carried in the interval (the selected
/// pair's received bytes) while the video loses packets (≥ ``overloadLoss``) or arrives well
/// below what the same layer brought while healthy (``shortfall``): then the link is full and
/// that goodput is its capacity. Without loss it is `nil` (the received rate is only a
/// lower bound: the link could carry more), and the policy steps up after its hold.
struct SubscriberAdaptation: Sendable {
    enum Output: Sendable, Hashable {
        /// Send this to the router for the subscription's handle.
        case configure(RouterStreamConfiguration)
        /// Tell the subscriber.
        case event(CallSubscriberEvent)
        /// The monitor's receive limit changed.
        case receiveLimit(SubscriberReceiveLimit)
    }

    /// The video loss fraction of one interval from which the downlink counts as full.
    static let overloadLoss = 0.02
    /// The audio loss fraction of one interval that counts as the audio losing packets (2 of
    /// 50 packets a second: one lost packet is noise).
    static let audioLoss = 0.03
    /// The share of what the link delivered on the forwarded layer while healthy below which
    /// the received rate says the downlink is full.
    static let shortfall = 0.8

    private(set) var policy: LayerPolicy
    /// The video media section's mid on the subscription (from the router's offer).
    var videoMid: String?
    private var previous = PreviousCounters()
    private var publisherSaid = PublisherSaid()
    private var shown = LayerShown()
    private var settle = Settling()
    private var healthy = HealthyRates()
    private var limits = Limits()
    /// The layers as the subscriber sees them, for a publisher that sends no sender stats.
    private var observed = ObservedLayers()

    /// The counters of the interval before: the link's received bytes, the video's and the
    /// audio's packets.
    private struct PreviousCounters: Sendable {
        var pair: (bytes: Double, time: Double)?
        var video: (lost: UInt64, received: UInt64)?
        var audio: (lost: UInt64, received: UInt64)?
    }

    /// What the publisher's sender stats and its decoded frames said so far.
    private struct PublisherSaid: Sendable {
        /// The most layers it sent at once.
        var mostLayers = 0
        /// Whether its camera is on (`nil` before it said).
        var video: Bool?
        /// Its full frame rate as the last intervals' decoded frames show it (frames/s, newest
        /// last, at most ``frameRateWindow``).
        var frameRates: [Double] = []
        /// Its video is off because its media stopped arriving (not because its sender stats
        /// said so): the media coming back turns it on again.
        var videoOffBySource = false
    }

    /// How many intervals' frame rates the publisher's full frame rate is taken over (their
    /// highest: a freeze or a congested interval decodes fewer frames than are sent).
    static let frameRateWindow = 5

    /// The layer shown to the subscriber (`layerChanged`).
    private struct LayerShown: Sendable {
        /// The layer forwarded, from the router's event or the decoded frames.
        var forwarded: (substream: Int?, temporal: Int?) = (nil, nil)
        /// The layer whose size the last interval's decoded frames had (`nil` when none was
        /// decoded, or the size is no layer's).
        var decodedSubstream: Int?
        /// The last one announced.
        var announced: LayerPolicy.Target?
    }

    /// The intervals whose loss and rate say nothing.
    private struct Settling: Sendable {
        /// The first interval after a resume counts the pause's gap as lost.
        var skipLossOnce = false
        /// Whether the layer asked for changed in the last interval (the one just measured may
        /// still have carried the old layer: not a healthy rate of the new one).
        var switchedLastInterval = false
        /// Intervals left after a step down whose loss and rate are not judged.
        var intervals = 0
    }

    /// What the link delivered per forwarded substream in healthy intervals.
    private struct HealthyRates: Sendable {
        /// bps, smoothed, by substream.
        var rates: [Int: Double] = [:]
        /// Consecutive intervals short of the healthy rate without loss.
        var quietShortIntervals = 0
    }

    /// The receive limit given to the monitor, and who lowered the layer last.
    private struct Limits: Sendable {
        var current = SubscriberReceiveLimit.none
        /// Why the layer was last lowered (`.downlink` or `.publisher`).
        var lowered = SubscriberReceiveLimit.downlink
    }

    /// How many intervals after a step down are not judged.
    static let settleIntervals = 2
    /// Short intervals without loss after which the healthy rate is taken to have been a burst.
    static let quietShortfallIntervals = 3
    /// What the link delivered per forwarded substream in healthy intervals (bps, smoothed).
    var healthyRates: [Int: Double] { healthy.rates }

    init(preferences: LayerPreferences = .init(), configuration: LayerPolicy.Configuration = .init()) {
        policy = LayerPolicy(preferences: preferences, configuration: configuration)
    }

    /// A new router handle (a replaced peer connection): it forwards its default layer again.
    mutating func restart(videoMid: String?) {
        self = SubscriberAdaptation(preferences: policy.preferences, configuration: policy.configuration)
        self.videoMid = videoMid
    }

    /// One stats interval: what the subscriber's monitor read from its report, decided at
    /// `reportTime` (ms, the report's clock).
    mutating func interval(_ reading: SubscriberReading, reportTime: Double, preferences: LayerPreferences, now: Duration) -> [Output] {
        var actions: [LayerPolicy.Action] = []
        if preferences != policy.preferences { actions += policy.receive(.preferences(preferences), now: now) }

        let link = reading.mediaLink, video = reading.video, audio = reading.audio
        let pairBytes = reading.connection.progress.bytesReceived
        let linkRate = previous.pair.flatMap { last -> Double? in
            guard reportTime > last.time, pairBytes >= last.bytes else { return nil }
            return (pairBytes - last.bytes) * 8 / ((reportTime - last.time) / 1000)
        }
        previous.pair = (pairBytes, reportTime)
        // The first interval after a resume counts the pause's sequence-number gap as lost
        // (measured: 19-20 % "loss" on an uncapped link): no loss from it.
        let skipLoss = settle.skipLossOnce || settle.intervals > 0
        settle.skipLossOnce = false
        settle.intervals = max(0, settle.intervals - 1)
        let videoCounters = video.map { (lost: $0.videoPacketsLost, received: $0.videoPacketsReceived) }
        // No video packet in the interval: nothing was offered, so what the link carried (RTCP,
        // audio) is no reading of what it can carry (docs/network-condition.md).
        let videoArrived = videoCounters.map { counters in previous.video.map { counters.received > $0.received } ?? true } ?? false
        let goodput = videoArrived ? linkRate : nil
        let loss = skipLoss ? nil : videoCounters.flatMap { Self.lossFraction($0, since: previous.video) }
        previous.video = videoCounters ?? previous.video
        let audioCounters = audio.map { (lost: $0.audioPacketsLost, received: $0.audioPacketsReceived) }
        let audioLossy = audioCounters.flatMap { Self.lossFraction($0, since: previous.audio) }.map { $0 >= Self.audioLoss } ?? false
        let audioArrived = audioCounters.map { counters in previous.audio.map { counters.received > $0.received } ?? false } ?? false
        previous.audio = audioCounters ?? previous.audio
        // The link starves the video (docs/network-condition.md): the publisher sends it, none
        // arrives while the audio does and the link shows trouble. Or a probe asked for video
        // and, past the interval that waits for its key frame, none came while the audio did.
        // Either way the link is full and what it carried is its capacity: nothing fits.
        let probing = policy.isResuming && policy.videoOffReason == .qualityChanged
        let starved = reading.publisherSending == .videoStarved || (probing && !skipLoss && !videoArrived && audioArrived)

        // The latest message however old: under a downlink cap the data channel it comes on
        // starves too, and the layers it last listed are still the best knowledge.
        let fresh = reading.senderStats
        // The publisher's video: off when its media stopped arriving (it stopped its video, or
        // vanished: docs/network-condition.md), else what its sender stats say; on again when
        // media it had stopped comes back.
        let stoppedAtSource = reading.publisherSending == .stopped || reading.publisherSending == .videoStopped
        let sending = stoppedAtSource ? false : fresh?.videoEnabled ?? (publisherSaid.videoOffBySource ? true : nil)
        if let sending, sending != publisherSaid.video {
            if publisherSaid.video != nil || !sending { actions += policy.receive(.publisherVideo(sending), now: now) }
            publisherSaid.video = sending
        }
        if stoppedAtSource { publisherSaid.videoOffBySource = true } else if sending == true { publisherSaid.videoOffBySource = false }
        // Without sender stats (or without layers in them) the layers are what the subscriber
        // sees: see ``ObservedLayers``.
        let listed = Self.layers(fresh)
        let layers = listed.isEmpty ? observed.layers : listed
        observed.derived = listed.isEmpty
        publisherSaid.mostLayers = max(publisherSaid.mostLayers, layers.count)
        let targetBefore = policy.target
        let publisherFrameRate = noteFrameRate(video?.decodedFrameRate, unmeasured: video.map { $0.unmeasured.contains(.frameRate) } ?? true, skip: skipLoss)
        if let link {
            // Full: the video loses packets, or the link delivered clearly less than it did on
            // this layer while healthy (received bytes against received bytes: the publisher's
            // per-layer bitrates are too rough for this, see `layers`): seen an interval before
            // the queue overflows.
            // The layer asked for: Janus switches at that layer's next key frame, while its own
            // event saying so comes on the long poll, which a capped downlink holds back for
            // tens of seconds (measured: not before 30 s after a 100 kbit/s cap's end).
            let forwardedSubstream = policy.target?.substream ?? shown.forwarded.substream
            let healthyRate = forwardedSubstream.flatMap { healthy.rates[$0] }
            // (Not while the video is paused, nor in the first interval after a resume: then
            // little is forwarded on purpose, or the key frame is awaited.)
            let paused = policy.isVideoOff && !policy.isResuming
            var short = paused || skipLoss ? false : goodput.flatMap { goodput in healthyRate.map { goodput < Self.shortfall * $0 } } ?? false
            // A shortfall that no loss follows is no full link (a tbf queue overflows within an
            // interval or two): the healthy rate was a burst, e.g. the queue draining after a
            // cap's end (measured: stuck warned on the lowest layer for the 35 s after one).
            // The link loses: the video's packets, or the audio's while the video is short (a
            // capped link that lets a few video packets through loses the audio around them:
            // measured on a relayed call, 2 video packets a second, none counted lost yet,
            // while the audio lost 17 of 57).
            let losing = (loss ?? 0) >= Self.overloadLoss || (short && audioLossy)
            healthy.quietShortIntervals = short && !losing ? healthy.quietShortIntervals + 1 : 0
            if healthy.quietShortIntervals >= Self.quietShortfallIntervals, let goodput, let forwardedSubstream {
                healthy.rates[forwardedSubstream] = goodput
                short = false
                healthy.quietShortIntervals = 0
            }
            if let goodput, let forwardedSubstream, !paused, !skipLoss, !short, !settle.switchedLastInterval, (loss ?? 0) < Self.overloadLoss {
                healthy.rates[forwardedSubstream] = healthy.rates[forwardedSubstream].map { 0.7 * $0 + 0.3 * goodput } ?? goodput
            }
            // What a healthy interval decoded, and at what rate: the layer as the subscriber sees it.
            if let video, video.decodedFrameRate > 0, !video.unmeasured.contains(.bitrate), !paused, !skipLoss, !short, !settle.switchedLastInterval,
               (loss ?? 0) < Self.overloadLoss, reading.publisherSending == .sending {
                observed.note(substream: forwardedSubstream ?? observed.routerTop ?? 0, width: video.width, height: video.height, bitrate: video.bitrate)
            }
            // A shortfall gives an estimate on its first loss-free interval (the queue fills
            // before it overflows), not on the next: a full link loses packets by then, and two
            // loss-free short intervals were a publisher's rate dip (measured: its encoder at 15
            // frames a second for a moment), no reason to step down.
            // Not during a probe: without a router the publisher's own congestion control
            // ramps its video up from what the cap left it, so a probe after the cap has gone
            // arrives short of the healthy rate without losing anything (measured on a relayed
            // call: every probe failed on that shortfall, the video never came back); a cap
            // that still holds makes the probe lose packets.
            let estimate = starved ? linkRate
                : losing || (short && !probing && healthy.quietShortIntervals <= 1) ? goodput : nil
            // The downlink as measured, not as reported: under our own `.downlink` limit the
            // monitor keeps reporting warning/bandwidth after the loss has gone (the attribution
            // after a step-down), which would never let the policy step up again.
            let condition = reading.measuredDownlink?.networkCondition ?? link.transport.networkCondition
            actions += policy.receive(.interval(condition: condition, estimate: estimate, layers: layers,
                                                publisherAllowsFallback: fresh?.audioFallbackEnabled ?? true,
                                                // The interval after a resume confirms nothing.
                                                framesDecoded: (video?.decodedFrameRate ?? 0) > 0 && !skipLoss,
                                                audioLossy: audioLossy, delivered: goodput, publisherFrameRate: publisherFrameRate), now: now)
        }
        if actions.contains(where: { if case .resumeVideo = $0 { true } else { false } }) { settle.skipLossOnce = true }
        settle.switchedLastInterval = targetBefore != nil && policy.target != targetBefore   // (the first choice: the router forwarded its default before it)
        // Who lowered the layer: the policy (a configure: the downlink), or the router's own
        // fallback the policy followed (no configure: the publisher stopped the layer).
        if let before = targetBefore, let after = policy.target, after.substream < before.substream {
            let configured = actions.contains { if case .configure = $0 { true } else { false } }
            limits.lowered = configured ? .downlink : .publisher
            // A step down (not the warning's): the queue still holds the old layer and the new
            // one waits for its key frame, so loss and a low rate say nothing for a while
            // (measured: taken for "nothing fits" 3 s after a 400 kbit/s step-down).
            if configured, !actions.contains(.videoDisableWarning) { settle.intervals = Self.settleIntervals }
        }
        var outputs = actions.flatMap(outputs(of:))
        // The layer the frames decoded now have: the switch as the subscriber sees it, which
        // does not wait for Janus's event (held back 10-30 s behind a capped downlink).
        // Only the layer asked for: frames of another are the old layer's, still in the queue
        // or waiting for the new one's key frame.
        shown.decodedSubstream = video.flatMap { video in
            (video.decodedFrameRate > 0 ? layers.first { $0.width == video.width && $0.height == video.height } : nil)?.substream
        }
        if !observed.isSingleLayer, let decoded = shown.decodedSubstream, decoded == policy.target?.substream, decoded != shown.forwarded.substream {
            outputs += announce(substream: decoded, temporal: shown.forwarded.temporal)
        }
        let newLimit = receiveLimit(layers)
        if newLimit != limits.current {
            limits.current = newLimit
            outputs.append(.receiveLimit(newLimit))
        }
        return outputs
    }

    /// The router switched layer (its event): the subscriber's `layerChanged`, once per change
    /// (see ``announce(substream:temporal:)``). A late event is not taken (behind a capped
    /// downlink they came 10-30 s late): one above the substream last asked for (Janus only
    /// ever falls back below it), or one that differs from it while frames of it are decoded.
    mutating func forwardedLayerChanged(substream: Int?, temporal: Int?) -> [Output] {
        if let substream { observed.routerSubstream(substream) }
        let asked = policy.target?.substream
        let taken = substream.flatMap { substream -> Int? in
            guard let asked else { return substream }
            if substream > asked || (shown.decodedSubstream == asked && substream != asked) { return nil }
            return substream
        }
        return announce(substream: taken ?? shown.forwarded.substream, temporal: temporal ?? shown.forwarded.temporal)
    }

    /// The layer now forwarded, from the router's event or the decoded frames' size: the
    /// subscriber's `layerChanged`, once per change (a value not known yet is taken as the one
    /// asked for, else the router's default, 2).
    private mutating func announce(substream: Int?, temporal: Int?) -> [Output] {
        shown.forwarded = (substream, temporal)
        let layer = LayerPolicy.Target(substream: shown.forwarded.substream ?? policy.target?.substream ?? 2,
                                       temporal: shown.forwarded.temporal ?? policy.target?.temporal ?? 2)
        guard layer != shown.announced else { return [] }
        shown.announced = layer
        return [.event(.layerChanged(substream: layer.substream, temporal: layer.temporal))]
    }

    /// The publisher's full frame rate from this interval's decoded frames, kept over the last
    /// ``frameRateWindow`` intervals (`nil` while none is known). The router forwards the
    /// temporal layer asked for (the top one before any was), each layer below the top at half
    /// the rate of the one above: decoded × 2^(top − layer) is the full rate. Not measured while
    /// the video is off, in the interval after a switch or a resume (frames of the old layer
    /// still arrive), nor from an interval whose rate is unknown.
    private mutating func noteFrameRate(_ decoded: Double?, unmeasured: Bool, skip: Bool) -> Double? {
        let top = policy.configuration.fit.temporalShares.count - 1
        let layer = min(policy.target?.temporal ?? top, top)
        if let decoded, decoded > 0, !unmeasured, !skip, !settle.switchedLastInterval, !policy.isVideoOff {
            publisherSaid.frameRates.append(decoded * Double(1 << (top - layer)))
            if publisherSaid.frameRates.count > Self.frameRateWindow { publisherSaid.frameRates.removeFirst() }
        }
        return publisherSaid.frameRates.max()
    }

    // MARK: -

    /// The share of packets lost between two readings of a stream's counters; `nil` without an
    /// earlier reading, when a counter went back, or when no packet was due.
    static func lossFraction(_ counters: (lost: UInt64, received: UInt64), since last: (lost: UInt64, received: UInt64)?) -> Double? {
        guard let last, counters.lost >= last.lost, counters.received >= last.received else { return nil }
        let lost = Double(counters.lost - last.lost), received = Double(counters.received - last.received)
        return lost + received > 0 ? lost / (lost + received) : nil
    }

    /// The layers a message says are being sent (bitrate above 0), low to high by size; the
    /// substream is the position (Janus numbers a publisher's layers the same way). A layer that
    /// claims to cost more than a bigger one says nothing true of its own cost: on the rig the
    /// 240x135 layer was reported at 670-830 kbit/s in the first seconds of a call (its key
    /// frames), and with a 15 fps camera for the whole call (672-795 kbit/s in six calls,
    /// 2026-12-03, its encoder's target 150 kbit/s, 100-120 packets a second: most likely the
    /// sender's padding counted as its bytes), above the 960x540 one. Such a layer is taken at the bigger
    /// layer's cost scaled by their areas to the power 3/4 (a codec's bitrate grows more slowly
    /// than the pixels: common simulcast ladders put about a third of the bitrate on a quarter
    /// of the pixels), so that a link the lowest layer fits still gets it rather than audio only.
    static func layers(_ message: SenderStatsMessage?) -> [SimulcastLayer] {
        let sent = (message?.layers ?? []).filter { $0.bitrate > 0 }.sorted { $0.width * $0.height < $1.width * $1.height }
        var layers = sent.enumerated().map { SimulcastLayer(substream: $0.offset, width: $0.element.width, height: $0.element.height, bitrate: $0.element.bitrate) }
        var nextBigger: SimulcastLayer?   // its cost already taken
        for index in layers.indices.reversed() {
            if let above = nextBigger, layers[index].bitrate > above.bitrate {
                let areas = Double(layers[index].width * layers[index].height) / Double(max(1, above.width * above.height))
                let root = min(1, areas).squareRoot()
                layers[index].bitrate = above.bitrate * root * root.squareRoot()
            }
            nextBigger = layers[index]
        }
        return layers
    }

    private func outputs(of action: LayerPolicy.Action) -> [Output] {
        switch action {
        case .configure(let target):
            // A publisher that sends one layer has none to choose: nothing to ask the router.
            guard let videoMid, !observed.isSingleLayer else { return [] }
            return [.configure(RouterStreamConfiguration(mid: videoMid, substream: target.substream, temporal: target.temporal))]
        case .pauseVideo:
            guard let videoMid else { return [] }
            return [.configure(RouterStreamConfiguration(mid: videoMid, send: false))]
        case .resumeVideo(let target):
            guard let videoMid else { return [] }
            if observed.isSingleLayer { return [.configure(RouterStreamConfiguration(mid: videoMid, send: true))] }
            return [.configure(RouterStreamConfiguration(mid: videoMid, send: true, substream: target.substream, temporal: target.temporal))]
        case .videoDisableWarning: return [.event(.videoDisableWarning)]
        case .videoDisableWarningLifted: return [.event(.videoDisableWarningLifted)]
        case .videoDisabled(let reason): return [.event(.videoDisabled(reason))]
        case .videoEnabled(let reason): return [.event(.videoEnabled(reason))]
        }
    }

    /// Why less video arrives than the preferences ask for: `.paused` while the policy holds
    /// the video off for quality, `.videoOff` while the app does (until `videoEnabled`), below the preferred layer whoever
    /// lowered it last, the publisher's when it sends fewer layers than it did and we get its
    /// top one.
    private func receiveLimit(_ layers: [SimulcastLayer]) -> SubscriberReceiveLimit {
        if let reason = policy.videoOffReason {
            switch reason {
            case .qualityChanged: return .paused
            case .subscriberPropertyChanged: return .videoOff
            // The publisher's camera off still sends (black) frames: nothing to hide. (The
            // policy never switches the video off for a codec change.)
            case .publisherPropertyChanged, .codecChanged: return .none
            }
        }
        guard let target = policy.target, let top = layers.last else { return .none }
        let preferred = layers.last { layer in
            policy.preferences.resolution.map { layer.width <= $0.width && layer.height <= $0.height } ?? true
        }?.substream ?? 0
        if target.substream < preferred { return limits.lowered }
        // The publisher sends fewer layers than it did, we get its top one, and the preference
        // would take a bigger one.
        let wantsMore = policy.preferences.resolution.map { top.width < $0.width || top.height < $0.height } ?? true
        if layers.count < publisherSaid.mostLayers, target.substream >= top.substream, wantsMore { return .publisher }
        return .none
    }
}
