import Calls
import CallsChromium
import CallsJanus
import Foundation
import Observability
import Testing

/// The layer policy on the rig (docs/adaptation.md): Alice publishes the fake camera as 3-layer VP8
/// simulcast (960x540, 480x270, 240x135) with sender stats from the root namespace, Bob
/// subscribes from `csrig-calls`; a `tc tbf` on the root side of the veth caps Bob's downlink.
///
/// The issue holds each cap ≥ 60 s; CI holds it `CALLSCOPE_ADAPT_HOLD` seconds (default 22) to
/// stay inside the suite's time budget. `CALLSCOPE_ADAPT_HOLD=60` gives the issue's run.
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc"),
                             "needs CALLSCOPE_REAL_NETNS=1, root, ip, tc (run under the rig lock)"))
struct RealAdaptationTests {
    static var hold: Double {
        ProcessInfo.processInfo.environment["CALLSCOPE_ADAPT_HOLD"].flatMap(Double.init).map { max(5, $0) } ?? 22
    }

    /// What Bob's subscriber saw: lifecycle/adaptation events and stats callbacks, timed.
    struct Observed {
        let subscriber: CallSubscriber
        let events: Timed<CallSubscriberEvent>
        let stats: Timed<StatsCallback>

        /// When the first event after `time` matching `predicate` arrived, waiting up to `timeout`.
        func first(after time: Date, within timeout: Duration, where predicate: @escaping (CallSubscriberEvent) -> Bool) async -> Date? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let found = events.all.first(where: { $0.0 > time && predicate($0.1) }) { return found.0 }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return events.all.first { $0.0 > time && predicate($0.1) }?.0
        }

        /// Decoded frame rates, per video callback, with their arrival time.
        var frameRates: [(Date, Double)] {
            stats.all.compactMap { item in
                if case .subscriberVideoNetworkStatsUpdated(let video) = item.1.event { (item.0, video.decodedFrameRate) } else { nil }
            }
        }

        /// Audio (lost, received) packet counters per audio callback.
        var audioCounters: [(Date, UInt64, UInt64)] {
            stats.all.compactMap { item in
                if case .subscriberAudioNetworkStatsUpdated(let audio) = item.1.event { (item.0, audio.audioPacketsLost, audio.audioPacketsReceived) } else { nil }
            }
        }

        /// Audio packets lost and received between two times.
        /// One line per video interval from `start` on (time, decoded size and rate, bitrate,
        /// packets lost and received, the link's condition and reason): what the policy read.
        func videoIntervals(from start: Date) -> [String] {
            stats.all.compactMap { item -> String? in
                guard item.0 >= start, case .subscriberVideoNetworkStatsUpdated(let video) = item.1.event else { return nil }
                let condition = video.transport.map { "\($0.networkCondition) \($0.networkConditionReason)" } ?? "-"
                return String(format: "%+.1f ", item.0.timeIntervalSince(start))
                    + "\(video.width)x\(video.height)@\(Int(video.decodedFrameRate)) \(Int(video.bitrate / 1000))k lost \(video.videoPacketsLost)/\(video.videoPacketsReceived) \(condition)"
            }
        }

        func audio(from start: Date, to end: Date) -> (lost: UInt64, received: UInt64) {
            let inside = audioCounters.filter { $0.0 >= start && $0.0 <= end }
            guard let first = inside.first, let last = inside.last else { return (0, 0) }
            return (last.1 &- first.1, last.2 &- first.2)
        }
    }

    /// The call of ``TwoClientCall`` with Bob in the namespace, once his subscriber is on the
    /// top layer with 5 s of steady media; the cap is removed after `body` whatever happened.
    func withCapRig(publisher settings: CallPublisherSettings = CallPublisherSettings(name: "alice", media: TwoClientCall.media, senderStatsTrack: true),
                    _ body: (CallPublisher, Observed) async throws -> Void) async {
        await TwoClientCall.run("adaptation scenario", .init(namespaced: .bob, steady: .zero, publisher: settings)) { call in
            let observed = Observed(subscriber: try #require(call.subscriber), events: try #require(call.lifecycle), stats: try #require(call.subscriberStats))
            // Steady media first: the top layer, frames decoded.
            _ = await observed.events.wait(.seconds(10)) { if case .layerChanged(2, _) = $0 { true } else { false } }
            try await Task.sleep(for: .seconds(5))
            progress("before the cap: events \(Self.describe(observed.events.all.map(\.1))), layers \(observed.subscriber.statsMonitor.latestSenderStats?.layers.map { "\($0.rid ?? "-") \($0.width)x\($0.height)@\(Int($0.bitrate / 1000))k" } ?? [])")
            do {
                try await body(call.publisher, observed)
            } catch {
                try? await Self.removeCap()
                throw error
            }
            try? await Self.removeCap()
        }
    }

    static func describe(_ events: [CallSubscriberEvent]) -> String {
        events.map { event -> String in
            switch event {
            case .layerChanged(let s, let t): "layer \(s)/\(t)"
            case .videoDisabled(let reason): "disabled(\(reason.rawValue))"
            case .videoEnabled(let reason): "enabled(\(reason.rawValue))"
            case .videoDisableWarning: "warning"
            case .videoDisableWarningLifted: "lifted"
            case .didConnect: "didConnect"
            case .didDisconnect: "didDisconnect"
            case .didReconnect: "didReconnect"
            case .didFail(let error): "didFail(\(error))"
            }
        }.joined(separator: ", ")
    }

    /// Caps everything toward the namespace (Bob's downlink) at `kbit` kbit/s: a token bucket
    /// on the root side of the veth, as the rig's `rate` impairment (Rig/callscope_rig/netlab.py set_rate: burst
    /// ~40 ms at the rate, at least 6000 bytes; 300 ms of queue).
    static func cap(kbit: Int) async throws {
        let burst = max(6000, kbit * 1000 / 8 / 25)
        try await NetworkNamespace.run(["/usr/sbin/tc", "qdisc", "replace", "dev", NetworkNamespace.rootInterface, "root", "tbf",
                                        "rate", "\(kbit)kbit", "burst", "\(burst)", "latency", "300ms"])
    }

    static func removeCap() async throws {
        try await NetworkNamespace.run(["/usr/sbin/tc", "qdisc", "del", "dev", NetworkNamespace.rootInterface, "root"])
    }

    /// Holds a cap of `kbit` for `seconds`; returns its start and end.
    func holdCap(kbit: Int, seconds: Double) async throws -> (start: Date, end: Date) {
        progress("cap \(kbit) kbit/s on for \(seconds) s")
        try await Self.cap(kbit: kbit)
        let start = Date()
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        try await Self.removeCap()
        progress("cap off")
        return (start, Date())
    }

    /// A cap that fits the middle layer (480x270, which the rig's 15 fps publisher sends at
    /// about 230-370 kbit/s) but not the top one (960x540, ~500-880 kbit/s): before the policy, Janus kept the top layer coming and
    /// no frame was decoded for the whole cap; now a lower layer is forwarded and frames are
    /// decoded again within 5 s of the onset.
    @Test(.timeLimit(.minutes(3)))
    func aCapThatFitsALowerLayerGetsFramesDecodedWithin5Seconds() async throws {
        await withCapRig { _, observed in
            let (start, end) = try await holdCap(kbit: 400, seconds: Self.hold)
            progress("layers at the cap's end \(observed.subscriber.statsMonitor.latestSenderStats?.layers.map { "\($0.rid ?? "-") \($0.width)x\($0.height)@\(Int($0.bitrate / 1000))k" } ?? [])")
            let rates = observed.frameRates
            // The first interval after the onset that decodes nothing, and the first one after the
            // switch to a lower layer that decodes again.
            let stalled = rates.first { $0.0 > start && $0.0 < end && $0.1 == 0 }?.0
            let lower = observed.events.all.first { item in
                if case .layerChanged(let substream, _) = item.1 { item.0 > start && substream < 2 } else { false }
            }
            let resumed = rates.first { $0.0 > (lower?.0 ?? end) && $0.0 < end && $0.1 > 0 }?.0
            let after = observed.events.all.filter { $0.0 > start }.map(\.1)
            let timeline = observed.events.all.filter { $0.0 > start }.map { String(format: "%+.1f ", $0.0.timeIntervalSince(start)) + Self.describe([$0.1]) }
            let stalls = rates.filter { $0.0 > start && $0.0 < end && $0.1 == 0 }.map { String(format: "%.1f", $0.0.timeIntervalSince(start)) }
            let decodedDuringCap = rates.filter { $0.0 > start + 5 && $0.0 < end }
            let share = Double(decodedDuringCap.filter { $0.1 > 0 }.count) / Double(max(1, decodedDuringCap.count))
            progress("measured cap 400 kbit/s for \(Self.hold) s: first stall \(stalled.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "none") s, "
                     + "frames again \(resumed.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s, "
                     + "lower layer \(lower.map { String(format: "%.2f", $0.0.timeIntervalSince(start)) } ?? "never") s after the onset; "
                     + String(format: "intervals with frames from 5 s on: %.0f %%; ", share * 100) + "events \(timeline); intervals without frames at \(stalls)")
            #expect(lower != nil, "a lower layer forwarded during the cap")
            let recovery = resumed.map { $0.timeIntervalSince(start) }
            // The issue's 5 s. Measured 3.53-3.66 s in three runs with Janus's `nack_optimizations`
            // (Rig/janus/janus.jcfg), 4.55-6.35 s without it: Janus retransmitted the old layer's
            // lost packets into the downlink ahead of the new layer's key frame.
            #expect(recovery.map { $0 <= 5 } == true, "frames decoded again within 5 s of the onset: \(String(describing: recovery))")
            // The policy probes the top layer again after its hold (10 s, doubling on failure),
            // which stalls a few intervals each time; before it no frame was decoded at all.
            #expect(share >= 0.5, "frames decoded in ≥ 50 % of the intervals from 5 s after the onset: \(share)")
            #expect(!after.contains { if case .videoDisabled = $0 { true } else { false } },
                    "no audio fallback on a cap a layer fits: \(observed.videoIntervals(from: start - 2))")
        }
    }

    /// A cap below the lowest layer (240x135 at ~150 kbit/s): the video is disabled with
    /// `qualityChanged` within 5 s, audio keeps coming, and the video is enabled again within
    /// 15 s of the cap's removal.
    @Test(.timeLimit(.minutes(3)))
    func aCapBelowTheLowestLayerFallsBackToAudioAndRecovers() async throws {
        await withCapRig { _, observed in
            let (start, end) = try await holdCap(kbit: 100, seconds: Self.hold)
            let disabled = observed.events.all.first { $0.0 > start && $0.1 == .videoDisabled(.qualityChanged) }?.0
            let enabled = await observed.events.wait(.seconds(20)) { _ in
                observed.events.all.contains { $0.0 > end && $0.1 == .videoEnabled(.qualityChanged) }
            }.flatMap { _ in observed.events.all.first { $0.0 > end && $0.1 == .videoEnabled(.qualityChanged) }?.0 }
            let onset = observed.audio(from: start, to: start + 5)
            let rest = observed.audio(from: start + 5, to: end)
            let events = observed.events.all.filter { $0.0 > start }.map { String(format: "%+.1f ", $0.0.timeIntervalSince(start)) + Self.describe([$0.1]) }
            progress("measured cap 100 kbit/s for \(Self.hold) s: videoDisabled \(disabled.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s after the onset, "
                     + "videoEnabled \(enabled.map { String(format: "%.2f", $0.timeIntervalSince(end)) } ?? "never") s after the removal; "
                     + "audio lost/received in the first 5 s \(onset.lost)/\(onset.received), afterwards \(rest.lost)/\(rest.received); events \(events)")
            #expect(disabled.map { $0.timeIntervalSince(start) <= 5 } == true, "videoDisabled(qualityChanged) within 5 s of the onset")
            #expect(enabled.map { $0.timeIntervalSince(end) <= 15 } == true, "videoEnabled(qualityChanged) within 15 s of the removal")
            #expect(rest.received > 0, "audio keeps coming during the cap")
            let restLoss = Double(rest.lost) / Double(max(1, rest.lost + rest.received))
            // The goal is no audio loss beyond the onset burst; each probe into a cap
            // that still holds costs some (its key frame overflows the queue): measured 4.8-5.7 %
            // over a 22-60 s cap, so this bounds it at 10 % and docs/adaptation.md says so.
            #expect(restLoss < 0.10, "audio loss after the onset burst < 10 %: \(restLoss)")
        }
    }

    /// The same cap below the lowest layer with the publisher's `audioFallbackEnabled = false`:
    /// the video stays, on the lowest layer, with a warning and no `videoDisabled`.
    @Test(.timeLimit(.minutes(3)))
    func withoutAudioFallbackTheLowestLayerStaysWithAWarning() async throws {
        let settings = CallPublisherSettings(name: "alice", media: TwoClientCall.media, senderStatsTrack: true, audioFallbackEnabled: false)
        await withCapRig(publisher: settings) { _, observed in
            let (start, _) = try await holdCap(kbit: 100, seconds: min(Self.hold, 15))
            let events = observed.events.all.filter { $0.0 > start }
            let warning = events.first { $0.1 == .videoDisableWarning }?.0
            let lowest = events.first { if case .layerChanged(0, _) = $0.1 { true } else { false } }?.0
            progress("measured cap 100 kbit/s without audio fallback: warning \(warning.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s, "
                     + "lowest layer \(lowest.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s after the onset; events \(Self.describe(events.map(\.1)))")
            #expect(warning != nil, "a videoDisableWarning")
            #expect(lowest != nil, "the lowest layer forwarded")
            #expect(!events.contains { if case .videoDisabled = $0.1 { true } else { false } }, "never videoDisabled")
        }
    }

    /// Three scenarios that leave the call as they found it share one call (a call takes ~8 s to
    /// start, plus 5 s of steady media): the audio subscription paused and resumed, the preferred
    /// resolution lowered and raised, then the camera off and on (last: it restarts the video).
    @Test(.timeLimit(.minutes(3)))
    func audioSubscriptionPreferredResolutionAndCameraOnOneCall() async throws {
        await withCapRig { publisher, observed in
            try await subscribeToAudioPausesAndResumesTheAudioAlone(observed)
            try await aPreferredResolutionLoweredAndRaisedTakesEffectWithinTwoIntervals(observed)
            try await Task.sleep(for: .seconds(3))                 // steady on the top layer again
            try await aPublisherCameraOffAndOnIsPublisherPropertyChanged(publisher, observed)
        }
    }

    /// The publisher turns its camera off and on (`publishVideo`): `videoDisabled` and
    /// `videoEnabled` with `publisherPropertyChanged`.
    func aPublisherCameraOffAndOnIsPublisherPropertyChanged(_ publisher: CallPublisher, _ observed: Observed) async throws {
        let off = Date()
        publisher.publishVideo = false
        let disabled = await observed.first(after: off, within: .seconds(6)) { $0 == .videoDisabled(.publisherPropertyChanged) }
        try await Task.sleep(for: .seconds(3))
        let on = Date()
        publisher.publishVideo = true
        let enabled = await observed.first(after: on, within: .seconds(8)) { $0 == .videoEnabled(.publisherPropertyChanged) }
        progress("measured camera off: videoDisabled(publisherPropertyChanged) \(disabled.map { String(format: "%.2f", $0.timeIntervalSince(off)) } ?? "never") s; "
                 + "on: videoEnabled(publisherPropertyChanged) \(enabled.map { String(format: "%.2f", $0.timeIntervalSince(on)) } ?? "never") s")
        #expect(disabled != nil, "videoDisabled(publisherPropertyChanged)")
        #expect(enabled != nil, "videoEnabled(publisherPropertyChanged) after the camera came back")
        #expect(!observed.events.all.contains { $0.1 == .videoDisabled(.qualityChanged) }, "no quality fallback")
    }

    /// `preferredResolution` lowered to the middle layer's size and raised again: the router
    /// forwards the layer asked for within 2 stats intervals (2 s) each time.
    func aPreferredResolutionLoweredAndRaisedTakesEffectWithinTwoIntervals(_ observed: Observed) async throws {
        let lowered = Date()
        observed.subscriber.preferredResolution = CallVideoDimensions(width: 480, height: 270)
        let middle = await observed.first(after: lowered, within: .seconds(5)) { if case .layerChanged(1, _) = $0 { true } else { false } }
        try await Task.sleep(for: .seconds(3))
        let raised = Date()
        observed.subscriber.preferredResolution = nil
        let top = await observed.first(after: raised, within: .seconds(5)) { if case .layerChanged(2, _) = $0 { true } else { false } }
        let down = middle.map { $0.timeIntervalSince(lowered) }, up = top.map { $0.timeIntervalSince(raised) }
        progress("measured preferredResolution 480x270: layer 1 \(down.map { String(format: "%.2f", $0) } ?? "never") s; raised: layer 2 \(up.map { String(format: "%.2f", $0) } ?? "never") s")
        #expect(down.map { $0 <= 2 } == true, "lowered within 2 intervals: \(String(describing: down))")
        #expect(up.map { $0 <= 2 } == true, "raised within 2 intervals: \(String(describing: up))")
    }

    /// `subscribeToAudio = false` on real Janus: the audio packets received stop growing within
    /// two intervals while frames keep being decoded; `true` brings them back within two.
    func subscribeToAudioPausesAndResumesTheAudioAlone(_ observed: Observed) async throws {
        func received(after time: Date) -> [UInt64] { observed.audioCounters.filter { $0.0 > time }.map(\.2) }
        let off = Date()
        observed.subscriber.subscribeToAudio = false
        try await Task.sleep(for: .seconds(5))
        // Seconds 3-5 after the change: the counter no longer moves.
        let paused = received(after: off.addingTimeInterval(2.5))
        let framesWhilePaused = observed.frameRates.filter { $0.0 > off.addingTimeInterval(2.5) }.map(\.1)
        let on = Date()
        observed.subscriber.subscribeToAudio = true
        try await Task.sleep(for: .seconds(5))
        let resumed = received(after: on.addingTimeInterval(2.5))
        progress("measured subscribeToAudio: received while paused \(paused), frame rates \(framesWhilePaused), after resuming \(resumed)")
        #expect(paused.count >= 2 && Set(paused).count == 1, "no audio packet from 2.5 s after the pause: \(paused)")
        #expect(!framesWhilePaused.isEmpty && framesWhilePaused.allSatisfy { $0 > 0 }, "video kept decoding: \(framesWhilePaused)")
        #expect(resumed.count >= 2 && resumed.last! > resumed.first!, "audio arrives again: \(resumed)")
    }
}
