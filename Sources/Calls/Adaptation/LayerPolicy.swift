import CallScopeCore
import Observability

/// One spatial layer a publisher sends (its sender stats' `layers`), low to high.
struct SimulcastLayer: Sendable, Hashable {
    /// The router's index of the layer (Janus `substream`).
    var substream: Int
    var width: Int
    var height: Int
    /// What the publisher sends for it now, bps (all temporal layers).
    var bitrate: Double
}

/// What the app asked a subscriber to receive.
struct LayerPreferences: Sendable, Hashable {
    /// The largest size wanted; `nil` for no limit.
    var resolution: CallVideoDimensions?
    /// The highest frame rate wanted; `nil` for the full rate.
    var frameRate: Double?
    /// `subscribeToVideo`.
    var subscribeToVideo = true
    /// The subscriber's own audio-fallback switch (the publisher's comes with each interval).
    var audioFallbackEnabled = true
}

/// Which layer a subscriber asks the router to forward, and when to fall back to audio, as a
/// value: one input per stats interval (plus the router's and the app's changes), the actions
/// out; the caller sends them to the router (`configure` with `substream` / `temporal` / `send`)
/// and emits the events.
///
/// The target is the highest spatial layer at or below the preferred resolution, on the highest
/// temporal layer not above the preferred frame rate (from the publisher's real frame rate when
/// it is known; the lowest when even that is above it), whose bitrate plus audio fits the downlink
/// estimate with a margin. Down after `downAfter` bad intervals in a row; up only after a hold
/// since the last change, and an up-switch that brings the degradation back within the hold
/// goes back down (after one bad interval within `failedUpSwitchWindow`: a failed probe is
/// undone at once) and doubles the
/// hold (as congestion controllers back off). What the link carried when it was last full is
/// taken as its capacity until it carries a fifth more: an up-switch to a layer that capacity
/// does not fit waits twice the hold (each probe into a cap that still holds costs the
/// subscriber 2-3 s of frames, the router having no other way to probe). A layer the
/// publisher no longer sends is the router's own fallback: never asked for again until the
/// publisher sends it. When even the lowest layer does not fit, or the downlink stays critical,
/// and both sides allow it, the video is paused after one warning interval, then probed back
/// with a growing backoff (a probe fails on the first interval nothing fits, or whose audio
/// loses packets when it did not before the probe: the probe is what overflows the link);
/// `videoEnabled` comes only once frames are decoded again, on
/// `confirmIntervals` healthy intervals in a row (so a probe into a cap that still holds does
/// not flap enabled / disabled). When a side does not allow the fallback, the warning comes and
/// stays while the lowest layer does not fit, and is lifted when it fits again.
struct LayerPolicy: Sendable {
    struct Configuration: Sendable, Hashable {
        /// What fits the downlink.
        var fit = Fit()
        /// When to step down and up.
        var stepping = Stepping()
        /// Audio fallback and the probes back.
        var fallback = Fallback()

        /// What fits the downlink.
        struct Fit: Sendable, Hashable {
            /// The share of the estimate the video plus audio may use.
            var margin = 0.85
            /// What the audio takes, bps.
            var audioBitrate = 48_000.0
            /// The top temporal layer's frame rate until the publisher's real one is known, and
            /// the cumulative bitrate share of each temporal layer (VP8 L1T3 as libwebrtc
            /// allocates it).
            var topFrameRate = 30.0
            var temporalShares = [0.4, 0.6, 1.0]
            /// How far (frames/s) a temporal layer's measured rate may sit above the preferred
            /// frame rate and still count as not above it: a rate measured over one interval
            /// wobbles by about a frame (a 15 fps camera reads 14-16).
            var frameRateTolerance = 1.0
        }

        /// When to step down and up.
        struct Stepping: Sendable, Hashable {
            /// Consecutive bad intervals before stepping down (or falling back).
            var downAfter = 2
            /// The first hold before stepping up again.
            var initialHold: Duration = .seconds(10)
            /// The longest hold.
            var maximumHold: Duration = .seconds(80)
            /// How soon after an up-switch one bad interval undoes it (a failed probe); later,
            /// two are needed as for any step down (measured: a publisher's rate dip 8 s after
            /// an up-switch was taken for a failed probe).
            var failedUpSwitchWindow: Duration = .seconds(3)
        }

        /// Audio fallback and the probes back.
        struct Fallback: Sendable, Hashable {
            /// The first wait before probing video back after a fallback, and the longest.
            var initialProbeBackoff: Duration = .seconds(5)
            var maximumProbeBackoff: Duration = .seconds(8)
            /// Healthy intervals with decoded frames before a resumed video is announced enabled.
            var confirmIntervals = 2
        }
    }

    /// A spatial and a temporal layer.
    struct Target: Sendable, Hashable {
        var substream: Int
        var temporal: Int
    }

    enum Input: Sendable, Hashable {
        /// One stats interval: the downlink's condition and estimate (bps, `nil` when unknown),
        /// the layers the publisher sends, whether it allows audio fallback, whether frames were
        /// decoded in the interval, whether the audio lost packets in it, what the link carried
        /// in it (bps), the publisher's full frame rate (its top temporal layer's, frames/s;
        /// `nil` when not known, and the last known one stays).
        case interval(condition: NetworkCondition, estimate: Double?, layers: [SimulcastLayer], publisherAllowsFallback: Bool, framesDecoded: Bool,
                      audioLossy: Bool = false, delivered: Double? = nil, publisherFrameRate: Double? = nil)
        /// The app changed its preferences.
        case preferences(LayerPreferences)
        /// The publisher stopped (`false`) or started (`true`) sending video.
        case publisherVideo(Bool)
    }

    enum Action: Sendable, Hashable {
        /// Ask the router for this layer.
        case configure(Target)
        /// The video is about to be switched off (`subscriberVideoDisableWarning`).
        case videoDisableWarning
        /// The warning is over without a pause (`subscriberVideoDisableWarningLifted`).
        case videoDisableWarningLifted
        /// Stop the video m-line (`configure` with `send: false`).
        case pauseVideo
        /// Start it again on this layer (`send: true`: the router asks the publisher for a key frame).
        case resumeVideo(Target)
        case videoDisabled(SubscriberVideoEventReason)
        case videoEnabled(SubscriberVideoEventReason)
    }

    private enum Phase: Sendable, Hashable {
        case receiving
        case warned
        case paused(SubscriberVideoEventReason, probeAt: Duration?)
        /// Resumed, waiting for decoded frames before saying `videoEnabled`.
        case resuming(SubscriberVideoEventReason)
    }

    let configuration: Configuration
    private(set) var preferences: LayerPreferences
    private(set) var target: Target?
    private var phase = Phase.receiving
    private var runs: Runs
    private var timing: Timing
    private var seen = Seen()

    /// What the intervals said of the link and the publisher, kept between them.
    private struct Seen: Sendable {
        /// What the link carried when it was last full (bps), until it carries a fifth more.
        var capacity: Double?
        /// Whether the audio lost packets in the last interval while the video was paused.
        var audioLossyWhilePaused = false
        /// The publisher's full frame rate, frames/s (`nil` until an interval said).
        var publisherFrameRate: Double?
    }

    /// The runs of intervals the policy counts.
    private struct Runs: Sendable {
        /// Intervals that could not carry even the lowest layer: adopted `bad` after
        /// `downAfter` in a row, `healthy` again after one that could.
        var bad: Hysteresis<IntervalHealth>
        /// Healthy intervals with frames since the video was resumed: adopted `healthy` after
        /// `confirmIntervals` in a row.
        var resume: Hysteresis<IntervalHealth>
        /// Consecutive intervals whose target was below the current layer. A count, not a
        /// ``Hysteresis``: its threshold changes with each interval (1 soon after an up-switch)
        /// and a new preference pre-charges it.
        var lower = 0
    }

    /// When the layer last changed and how long the next step up and the next probe wait.
    private struct Timing: Sendable {
        var lastChange: Duration?
        var lastUpSwitch: Duration?
        var hold: Duration
        var probeBackoff: Duration
    }

    init(preferences: LayerPreferences = .init(), configuration: Configuration = .init()) {
        self.preferences = preferences
        self.configuration = configuration
        timing = Timing(hold: configuration.stepping.initialHold, probeBackoff: configuration.fallback.initialProbeBackoff)
        runs = Runs(bad: Self.badRun(configuration), resume: Self.resumeRun(configuration))
    }

    private static func badRun(_ configuration: Configuration) -> Hysteresis<IntervalHealth> {
        Hysteresis(degradeAfter: configuration.stepping.downAfter, recoverAfter: 1, adopted: .healthy)
    }

    private static func resumeRun(_ configuration: Configuration) -> Hysteresis<IntervalHealth> {
        Hysteresis(degradeAfter: 1, recoverAfter: configuration.fallback.confirmIntervals, adopted: .bad)
    }

    /// The hold before the next step up (it grows when an up-switch failed).
    var currentHold: Duration { timing.hold }

    /// Whether the video is off now: paused by the policy or the app, or the publisher's is off
    /// (until `videoEnabled`).
    var isVideoOff: Bool {
        switch phase {
        case .paused, .resuming: true
        case .receiving, .warned: false
        }
    }

    /// Whether the video was resumed and `videoEnabled` is awaited.
    var isResuming: Bool {
        if case .resuming = phase { true } else { false }
    }

    /// Why the video is off, when it is.
    var videoOffReason: SubscriberVideoEventReason? {
        switch phase {
        case .paused(let reason, _), .resuming(let reason): reason
        case .receiving, .warned: nil
        }
    }

    mutating func receive(_ input: Input, now: Duration) -> [Action] {
        switch input {
        case .preferences(let new):
            let before = preferences
            preferences = new
            if before.subscribeToVideo, !new.subscribeToVideo { return pause(.subscriberPropertyChanged, now: now, probe: false) }
            if !before.subscribeToVideo, new.subscribeToVideo, case .paused(.subscriberPropertyChanged, _) = phase {
                phase = .resuming(.subscriberPropertyChanged)
                runs.resume = Self.resumeRun(configuration)
                return [.resumeVideo(target ?? Target(substream: 0, temporal: temporalLayer))]
            }
            // A new preference takes effect at the next interval: no hold, no down-count.
            timing.lastChange = nil
            runs.lower = configuration.stepping.downAfter - 1
            return []
        case .publisherVideo(let sending):
            if !sending {
                if case .paused = phase { return [] }           // already off: no second disable
                if case .resuming(let reason) = phase, reason != .publisherPropertyChanged {
                    phase = .paused(.publisherPropertyChanged, probeAt: nil)
                    return []
                }
                phase = .paused(.publisherPropertyChanged, probeAt: nil)
                return [.videoDisabled(.publisherPropertyChanged)]
            }
            guard case .paused(.publisherPropertyChanged, _) = phase else { return [] }
            phase = .resuming(.publisherPropertyChanged)
            runs.resume = Self.resumeRun(configuration)
            return []
        case .interval(let condition, let estimate, let layers, let publisherAllows, let framesDecoded, let audioLossy, let delivered, let frameRate):
            if let estimate {
                seen.capacity = estimate
            } else if let delivered, let known = seen.capacity, delivered > known * 1.2 {
                seen.capacity = nil
            }
            if let frameRate, frameRate > 0 { seen.publisherFrameRate = frameRate }
            return interval(condition: condition, estimate: estimate, layers: layers, fallbackAllowed: publisherAllows && preferences.audioFallbackEnabled,
                            framesDecoded: framesDecoded, audioLossy: audioLossy, now: now)
        }
    }

    // MARK: One interval

    private mutating func interval(condition: NetworkCondition, estimate: Double?, layers: [SimulcastLayer], fallbackAllowed: Bool,
                                   framesDecoded: Bool, audioLossy: Bool, now: Duration) -> [Action] {
        let sent = layers.sorted { $0.substream < $1.substream }
        // Without any layer known (no sender stats and nothing decoded yet) only the phases
        // that need none move on: a resume awaiting its frames (the app's or the publisher's).
        guard let lowest = sent.first else {
            if case .resuming(let reason) = phase, reason != .qualityChanged { return confirmResume(reason, framesDecoded: framesDecoded, nothingFits: false, now: now) }
            return []
        }
        let temporal = temporalLayer
        let fitting = fittingLayer(sent, estimate: estimate, temporal: temporal)
        // No layer fits the measured estimate (the link is full and even the lowest does not fit).
        let nothingFits = estimate != nil && fitting == nil
        // No video at all fits: that, or the downlink is critical.
        let bad = condition == .critical || nothingFits

        switch phase {
        case .paused(let reason, let probeAt):
            // While paused (and probing) only the measured estimate counts: the monitor's
            // condition then describes a video that is not there.
            seen.audioLossyWhilePaused = audioLossy
            guard reason == .qualityChanged, let probeAt, now >= probeAt, !nothingFits else { return [] }
            let resumed = Target(substream: lowest.substream, temporal: temporal)
            target = resumed
            phase = .resuming(.qualityChanged)
            runs.resume = Self.resumeRun(configuration)
            return [.resumeVideo(resumed)]
        case .resuming(let reason):
            if reason == .qualityChanged, nothingFits || (audioLossy && !seen.audioLossyWhilePaused) {
                timing.probeBackoff = min(timing.probeBackoff * 2, configuration.fallback.maximumProbeBackoff)
                return pause(.qualityChanged, now: now, probe: true, announce: false)
            }
            // A probe is confirmed on a downlink no longer `critical`: confirmed before (the
            // condition takes 5 clean samples to recover, judged 2 late), the next intervals
            // were bad again and the policy fell back at once (measured on a relayed call:
            // `videoEnabled` 5.5 s after a cap's end, disabled again 2 s later).
            let stillCritical = reason == .qualityChanged && condition == .critical
            return confirmResume(reason, framesDecoded: framesDecoded, nothingFits: nothingFits || stillCritical, now: now)
        case .warned:
            if bad, fallbackAllowed { return pause(.qualityChanged, now: now, probe: true) }
            if !bad {
                phase = .receiving
                runs.bad = Self.badRun(configuration)
                return [.videoDisableWarningLifted] + layerChoice(sent, fitting: fitting, estimate: estimate, condition: condition, temporal: temporal, now: now)
            }
        case .receiving:
            break
        }

        // Audio fallback: even the lowest layer does not fit, or the downlink stays critical,
        // for `downAfter` intervals while already on the lowest layer. Warned first; without
        // the fallback allowed the warning stays (and the lowest layer keeps coming).
        // When nothing fits the measured estimate the warning comes without first waiting on the
        // lowest layer; without the fallback allowed the lowest layer is asked for with it (with
        // the fallback, the pause comes an interval later: one `configure`, not two, over a
        // downlink that delays what the router takes next).
        _ = runs.bad.receive(bad ? .bad : .healthy)
        let onLowest = target.map { $0.substream == lowest.substream } ?? true
        if case .receiving = phase, bad, runs.bad.adopted == .bad, onLowest || nothingFits {
            phase = .warned
            var actions = [Action.videoDisableWarning]
            if !onLowest, !fallbackAllowed {
                let lowestTarget = Target(substream: lowest.substream, temporal: temporal)
                actions += change(to: lowestTarget, now: now)
            }
            return actions
        }
        return layerChoice(sent, fitting: fitting, estimate: estimate, condition: condition, temporal: temporal, now: now)
    }

    /// A resumed video is announced enabled after ``Configuration/Fallback/confirmIntervals``
    /// intervals in a row with decoded frames (and, for a probe, a layer that fits).
    private mutating func confirmResume(_ reason: SubscriberVideoEventReason, framesDecoded: Bool, nothingFits: Bool, now: Duration) -> [Action] {
        _ = runs.resume.receive(framesDecoded && !nothingFits ? .healthy : .bad)
        guard runs.resume.adopted == .healthy else { return [] }
        phase = .receiving
        timing.lastChange = now
        if reason == .qualityChanged { timing.probeBackoff = configuration.fallback.initialProbeBackoff }
        return [.videoEnabled(reason)]
    }

    /// The layer change (if any) for this interval.
    private mutating func layerChoice(_ sent: [SimulcastLayer], fitting: SimulcastLayer?, estimate: Double?, condition: NetworkCondition,
                                      temporal: Int, now: Duration) -> [Action] {
        let lowest = sent[0]

        // A layer the publisher stopped sending is the router's fallback: follow, never re-ask.
        if let current = target, !sent.contains(where: { $0.substream == current.substream }) {
            target = Target(substream: sent.last { $0.substream < current.substream }?.substream ?? lowest.substream, temporal: current.temporal)
        }
        let desired = Target(substream: (fitting ?? (estimate == nil ? preferredLayer(sent) : lowest)).substream, temporal: temporal)
        guard let current = target else {
            target = desired
            timing.lastChange = now
            return [.configure(desired)]
        }
        let lower = desired.substream < current.substream || desired.temporal < current.temporal
        runs.lower = lower ? runs.lower + 1 : 0
        if desired == current { return [] }
        // Nothing fits: the warning's to decide (on the lowest layer, or the pause), not a step down.
        if lower, fitting == nil, estimate != nil { return [] }
        if lower {
            // A step down soon after a step up: the up-switch brought the trouble back, and is
            // undone after one bad interval.
            let failedUpSwitch = timing.lastUpSwitch.map { now - $0 < timing.hold } ?? false
            let justUp = timing.lastUpSwitch.map { now - $0 <= configuration.stepping.failedUpSwitchWindow } ?? false
            guard runs.lower >= (justUp ? 1 : configuration.stepping.downAfter) else { return [] }
            if failedUpSwitch { timing.hold = min(timing.hold * 2, configuration.stepping.maximumHold) }
            timing.lastUpSwitch = nil
            return change(to: desired, now: now)
        }
        // Up: only after the hold (twice that when the remembered capacity does not fit the
        // layer), on a healthy downlink.
        let hopeless = seen.capacity.map { known in (fittingLayer(sent, estimate: known, temporal: temporal)?.substream ?? -1) < desired.substream } ?? false
        let wait = hopeless ? timing.hold * 2 : timing.hold
        guard !condition.isDegraded, timing.lastChange.map({ now - $0 >= wait }) ?? true else { return [] }
        timing.lastUpSwitch = now
        return change(to: desired, now: now)
    }

    private mutating func change(to new: Target, now: Duration) -> [Action] {
        target = new
        timing.lastChange = now
        runs.lower = 0
        return [.configure(new)]
    }

    private mutating func pause(_ reason: SubscriberVideoEventReason, now: Duration, probe: Bool, announce: Bool = true) -> [Action] {
        phase = .paused(reason, probeAt: probe ? now + timing.probeBackoff : nil)
        runs.bad = Self.badRun(configuration)
        return announce ? [.pauseVideo, .videoDisabled(reason)] : [.pauseVideo]
    }

    // MARK: Layers

    /// The highest temporal layer whose frame rate is not above the preferred one (the top one
    /// without a preference; the lowest when every layer is above it: the router can send no
    /// fewer frames). Each layer below the top halves the rate (L1T3: ¼, ½, 1 of the full rate),
    /// the full rate being the publisher's real one when known (a 15 fps camera sends 3.75, 7.5
    /// and 15 fps), ``Configuration/topFrameRate`` before.
    private var temporalLayer: Int {
        let top = configuration.fit.temporalShares.count - 1
        guard let wanted = preferences.frameRate else { return top }
        let full = seen.publisherFrameRate ?? configuration.fit.topFrameRate
        for layer in (0...top).reversed() where full / Double(1 << (top - layer)) <= wanted + configuration.fit.frameRateTolerance { return layer }
        return 0
    }

    /// The layers at or below the preferred resolution (the lowest when none is).
    private func allowedLayers(_ layers: [SimulcastLayer]) -> [SimulcastLayer] {
        guard let limit = preferences.resolution else { return layers }
        let allowed = layers.filter { $0.width <= limit.width && $0.height <= limit.height }
        return allowed.isEmpty ? Array(layers.prefix(1)) : allowed
    }

    private func preferredLayer(_ layers: [SimulcastLayer]) -> SimulcastLayer {
        allowedLayers(layers).last ?? layers[0]
    }

    /// The highest allowed layer whose bitrate on `temporal` plus audio fits the estimate.
    private func fittingLayer(_ layers: [SimulcastLayer], estimate: Double?, temporal: Int) -> SimulcastLayer? {
        guard let estimate else { return nil }
        let share = configuration.fit.temporalShares[min(temporal, configuration.fit.temporalShares.count - 1)]
        let budget = estimate * configuration.fit.margin
        return allowedLayers(layers).last { $0.bitrate * share + configuration.fit.audioBitrate <= budget }
    }
}

/// Whether an interval could carry the video, as ``Hysteresis`` counts it.
private enum IntervalHealth: HysteresisLevel {
    case healthy
    case bad

    func isWorse(than adopted: IntervalHealth) -> Bool { self == .bad && adopted == .healthy }
}
