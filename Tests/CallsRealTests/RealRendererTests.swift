import CallScopeCore
import Calls
@testable import CallsChromium
import Foundation
import Observability
import RTCStats
import Testing

/// Issue 22's scenarios for renderers on a real call (docs/video.md, "On real calls"): Alice
/// publishes the rig's three VP8 layers (960x540, 480x270, 240x135 at 15 fps) from the root
/// namespace, Bob subscribes from `csrig-calls` with a ``VideoRenderer`` on his
/// ``CallSubscriber`` fed by the real ``ChromiumMediaEngine``'s frame channel. One call, four
/// phases: a downlink cap a lower layer fits, a cap below the lowest layer (audio fallback and
/// back), an 8 s blackout with reconnection, and a renderer that takes 200 ms per frame.
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc"),
                             "needs CALLSCOPE_REAL_NETNS=1, root, ip, iptables, tc (run under the rig lock)"))
struct RealRendererTests {
    /// The sizes of the rig's layers, top first.
    static let layerSizes: Set<String> = ["960x540", "480x270", "240x135"]

    /// A renderer that notes each frame's arrival and size, and takes `delay` per frame.
    final class RecordingRenderer: VideoRenderer {
        struct Seen: Sendable {
            let time: Date
            let width: Int
            let height: Int
            let number: Int
            var size: String { "\(width)x\(height)" }
        }

        private let state = Locked<(seen: [Seen], delay: Duration)>(([], .zero))

        var seen: [Seen] { state.withLock { $0.seen } }
        var delay: Duration {
            get { state.withLock { $0.delay } }
            set { state.withLock { $0.delay = newValue } }
        }

        func renderVideoFrame(_ frame: CallVideoFrame) {
            let delay = state.withLock { state -> Duration in
                state.seen.append(Seen(time: Date(), width: frame.width, height: frame.height, number: frame.number))
                return state.delay
            }
            if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
        }

        /// The frames that arrived in `[start, end]`.
        func frames(from start: Date, to end: Date) -> [Seen] { seen.filter { $0.time >= start && $0.time <= end } }
    }

    /// WebRTC's own freeze and pause counters of the subscriber's video `inbound-rtp`, from the
    /// latest report the stats pump fed (about once a second), with the entry's id. libwebrtc
    /// counts an interval between rendered frames of 5 s or more as a pause, not a freeze.
    struct Freezes: CustomStringConvertible {
        let id: String
        let freezes: Double
        let freezeSeconds: Double
        let pauses: Double
        let pauseSeconds: Double
        var description: String { String(format: "%@: %.0f freezes %.3f s, %.0f pauses %.3f s", id, freezes, freezeSeconds, pauses, pauseSeconds) }

        static func read(_ subscriber: CallSubscriber) -> Freezes? {
            guard let report = try? StatsReport(json: Array(subscriber.statsMonitor.rtcStatsReport().utf8)),
                  let video = report.entries(ofType: .inboundRTP).first(where: { $0.string("kind") == "video" }) else { return nil }
            return Freezes(id: video.id, freezes: video.freezeCount ?? 0, freezeSeconds: video.totalFreezesDuration ?? 0,
                           pauses: video.pauseCount ?? 0, pauseSeconds: video.totalPausesDuration ?? 0)
        }

        /// What happened from `before` to `after`: the difference on the same entry, the totals
        /// of `after` when its counters started again (a new inbound-rtp, or lower counts).
        static func since(_ before: Freezes, _ after: Freezes) -> Freezes {
            guard before.id == after.id, after.freezes >= before.freezes, after.pauses >= before.pauses else { return after }
            return Freezes(id: after.id, freezes: after.freezes - before.freezes, freezeSeconds: after.freezeSeconds - before.freezeSeconds,
                           pauses: after.pauses - before.pauses, pauseSeconds: after.pauseSeconds - before.pauseSeconds)
        }
    }

    /// The process's resident memory (`VmRSS` of /proc/self/status), kB.
    static func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    static func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "never" }

    /// The longest interval between two frames in `frames` (with the frames around it).
    static func longestGap(_ frames: [RecordingRenderer.Seen]) -> (seconds: Double, before: Date, after: Date)? {
        zip(frames, frames.dropFirst()).map { ($1.time.timeIntervalSince($0.time), $0.time, $1.time) }.max { $0.0 < $1.0 }
    }

    @Test(.timeLimit(.minutes(4)))
    func aRendererKeepsItsFramesThroughLayerSwitchesFallbackBlackoutAndSlowness() async throws {
        let settings = CallPublisherSettings(name: "alice", media: TwoClientCall.media, senderStatsTrack: true)
        await TwoClientCall.run("renderer scenarios", .init(namespaced: .bob, steady: .zero, publisher: settings)) { call in
            let subscriber = try #require(call.subscriber)
            let events = try #require(call.lifecycle)
            let namespace = try #require(call.namespace)
            // Bob's Chromium runs in the namespace, whose 127.0.0.1 is not ours: start his
            // engine's frame channel (a sink set and cleared on a connection of its own) and
            // forward its port from the namespace's loopback to ours.
            let bobChromium = call.bobChromium
            let probe = try await bobChromium.makePeerConnection(.init())
            try await bobChromium.setVideoFrameSink({ _ in }, on: probe)
            try await bobChromium.setVideoFrameSink(nil, on: probe)
            try await bobChromium.closePeerConnection(probe)
            let port = try #require(await bobChromium.frameChannel?.port)
            let forwarder = try NamespaceLoopbackForwarder(port: port)
            defer { forwarder.stop() }
            // Set after the subscription connected: the session asks the engine for frames then.
            let renderer = RecordingRenderer()
            subscriber.videoRenderer = renderer
            func layerEvent(after time: Date, _ predicate: (Int) -> Bool) -> Date? {
                events.all.first { item in if case .layerChanged(let s, _) = item.1 { item.0 > time && predicate(s) } else { false } }?.0
            }

            // Steady: frames at the top layer.
            let topBy = ContinuousClock.now + .seconds(20)
            while !renderer.seen.suffix(5).contains(where: { $0.size == "960x540" }), ContinuousClock.now < topBy {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(2))
            let steady = renderer.frames(from: Date() - 2, to: Date())
            progress("renderer: steady \(steady.count) frames in 2 s, sizes \(Set(steady.map(\.size)).sorted()); stats \(subscriber.videoOutput.stats)")
            try #require(steady.count >= 10 && steady.allSatisfy { $0.size == "960x540" }, "the top layer reaches the renderer before the cap")

            // 1. A cap the middle layer fits: the renderer sees the size change and keeps going.
            // The middle layer (230-370 kbit/s) plus audio and packet overhead can exceed 400 kbit/s
            // at its peaks: it may lose packets and freeze for a while, and the policy may step
            // down to 240x135. So the cap is held until `framesAfterSwitch` smaller frames reached
            // the renderer (2 s at 15 fps; 2.25-3.07 s after the first smaller frame in three runs) or
            // `afterSwitchDeadline` passed, instead of a fixed 4 s (7 frames in one CI run).
            let framesAfterSwitch = 30
            let afterSwitchDeadline: Duration = .seconds(12)
            let changesBefore = subscriber.videoOutput.stats.sizeChanges
            let capOn = Date()
            try await RealAdaptationTests.cap(kbit: 400)
            progress("renderer: cap 400 kbit/s on")
            let lowerBy = ContinuousClock.now + .seconds(10)
            while !renderer.frames(from: capOn, to: Date()).contains(where: { $0.width < 960 }), ContinuousClock.now < lowerBy {
                try await Task.sleep(for: .milliseconds(100))
            }
            let enoughBy = ContinuousClock.now + afterSwitchDeadline
            while ContinuousClock.now < enoughBy {
                let sinceOnset = renderer.frames(from: capOn, to: Date())
                guard let first = sinceOnset.firstIndex(where: { $0.width < 960 }) else { break }
                if sinceOnset[first...].count >= framesAfterSwitch { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await RealAdaptationTests.removeCap()
            let capOff = Date()
            let underCap = renderer.frames(from: capOn, to: capOff)
            let firstLower = underCap.first { $0.width < 960 }
            let afterSwitch = underCap.filter { frame in firstLower.map { frame.time >= $0.time } ?? false }
            let switchSeconds = firstLower.map { $0.time.timeIntervalSince(capOn) }
            let sizeChanges = subscriber.videoOutput.stats.sizeChanges - changesBefore
            let afterSwitchSeconds = firstLower.map { capOff.timeIntervalSince($0.time) }
            progress("renderer: cap 400 kbit/s for \(String(format: "%.1f", capOff.timeIntervalSince(capOn))) s: first smaller frame \(firstLower?.size ?? "none") "
                     + "\(Self.seconds(switchSeconds)) s after the onset; \(afterSwitch.count) frames in the \(Self.seconds(afterSwitchSeconds)) s from then to the removal, "
                     + "sizes \(Set(afterSwitch.map(\.size)).sorted()), longest gap \(Self.seconds(Self.longestGap(afterSwitch)?.seconds)) s; "
                     + "sizeChanges +\(sizeChanges); layer events \(RealAdaptationTests.describe(events.all.filter { $0.0 > capOn }.map(\.1)))")
            #expect(firstLower != nil, "a smaller frame reached the renderer during the cap")
            #expect(afterSwitch.count >= framesAfterSwitch,
                    "frames keep coming at the new size (≥ 2 s at 15 fps within \(afterSwitchDeadline) of the first): \(afterSwitch.count)")
            #expect(afterSwitch.allSatisfy { Self.layerSizes.contains($0.size) && $0.width < 960 }, "\(Set(afterSwitch.map(\.size)))")
            #expect(sizeChanges >= 1, "stats.sizeChanges counts the switch")

            // 2. A cap below the lowest layer: the video is paused (no frames), and once the cap
            // is gone the policy's probe (5 s after the pause) brings frames back.
            let fallbackOn = Date()
            try await RealAdaptationTests.cap(kbit: 100)
            progress("renderer: cap 100 kbit/s on")
            let disabled = await events.wait(.seconds(10)) { _ in
                events.all.contains { $0.0 > fallbackOn && $0.1 == .videoDisabled(.qualityChanged) }
            }.flatMap { _ in events.all.first { $0.0 > fallbackOn && $0.1 == .videoDisabled(.qualityChanged) }?.0 }
            try await RealAdaptationTests.removeCap()
            let fallbackOff = Date()
            let pausedDisabled = try #require(disabled, "videoDisabled(qualityChanged) within 10 s of the 100 kbit/s cap")
            let enabled = await events.wait(.seconds(25)) { _ in
                events.all.contains { $0.0 > pausedDisabled && $0.1 == .videoEnabled(.qualityChanged) }
            }.flatMap { _ in events.all.first { $0.0 > pausedDisabled && $0.1 == .videoEnabled(.qualityChanged) }?.0 }
            try await Task.sleep(for: .seconds(2))
            // The pause: from 1 s after videoDisabled (frames in flight drain) to 4.5 s after it
            // (the first probe comes 5 s after the pause, docs/adaptation.md).
            let whilePaused = renderer.frames(from: pausedDisabled + 1, to: pausedDisabled + 4.5)
            let resumed = renderer.frames(from: pausedDisabled + 4.5, to: Date())
            let resumedAt = resumed.first.map { $0.time.timeIntervalSince(pausedDisabled) }
            progress("renderer: cap 100 kbit/s: videoDisabled \(Self.seconds(pausedDisabled.timeIntervalSince(fallbackOn))) s after the onset (cap removed then); "
                     + "frames in the pause window \(whilePaused.count); first frame again \(Self.seconds(resumedAt)) s after videoDisabled, size \(resumed.first?.size ?? "none"), "
                     + "videoEnabled \(Self.seconds(enabled.map { $0.timeIntervalSince(fallbackOff) })) s after the removal; \(resumed.count) frames since, sizes \(Set(resumed.map(\.size)).sorted())")
            #expect(whilePaused.isEmpty, "no frame while the video is paused: \(whilePaused.count)")
            #expect(enabled != nil, "videoEnabled(qualityChanged) after the cap")
            #expect(resumed.count >= 15, "frames again after the fallback: \(resumed.count)")
            #expect(resumed.allSatisfy { Self.layerSizes.contains($0.size) }, "\(Set(resumed.map(\.size)))")
            if let latest = events.all.last(where: { if case .layerChanged = $0.1 { true } else { false } }) {
                progress("renderer: latest layer event \(RealAdaptationTests.describe([latest.1])) at \(Self.seconds(latest.0.timeIntervalSince(pausedDisabled))) s after videoDisabled")
            }

            // 3. An 8 s blackout of Bob's downlink: frames resume after the reconnection.
            let stream = subscriber.stream
            let freezesBefore = Freezes.read(subscriber)
            let reconnectsBefore = events.all.filter { $0.1 == .didReconnect(stream) }.count
            try await namespace.startBlackout()
            let blackoutStart = Date()
            progress("renderer: blackout on for 8 s")
            try await Task.sleep(for: .seconds(8))
            try await namespace.endBlackout()
            let blackoutEnd = Date()
            let reconnected = await events.wait(.seconds(20)) { _ in events.all.filter { $0.1 == .didReconnect(stream) }.count > reconnectsBefore }
                .flatMap { _ in events.all.filter { $0.0 > blackoutStart && $0.1 == .didReconnect(stream) }.first?.0 }
            let framesBy = ContinuousClock.now + .seconds(10)
            while renderer.frames(from: blackoutEnd, to: Date()).count < 5, ContinuousClock.now < framesBy {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(3))       // the stats pump's next reports
            let freezesAfter = Freezes.read(subscriber)
            let around = renderer.frames(from: blackoutStart - 3, to: Date())
            let gap = Self.longestGap(around)
            let blackout = blackoutEnd.timeIntervalSince(blackoutStart)
            let reconnection = reconnected.map { $0.timeIntervalSince(blackoutEnd) }
            let webrtc = freezesBefore.flatMap { before in freezesAfter.map { Freezes.since(before, $0) } }
            let timeline = events.all.filter { $0.0 > blackoutStart }
                .map { String(format: "%+.2f ", $0.0.timeIntervalSince(blackoutEnd)) + RealAdaptationTests.describe([$0.1]) }
            progress("renderer: blackout \(String(format: "%.2f", blackout)) s: didReconnect \(Self.seconds(reconnection)) s after the end; "
                     + "longest gap between frames \(Self.seconds(gap?.seconds)) s (last frame \(Self.seconds(gap.map { $0.before.timeIntervalSince(blackoutStart) })) s after the start, "
                     + "next \(Self.seconds(gap.map { $0.after.timeIntervalSince(blackoutEnd) })) s after the end); WebRTC before \(freezesBefore.map(String.init(describing:)) ?? "none"), "
                     + "after \(freezesAfter.map(String.init(describing:)) ?? "none"), over the blackout \(webrtc.map(String.init(describing:)) ?? "unknown"); "
                     + "events from the end \(timeline)")
            let reconnectedAfter = try #require(reconnection, "didReconnect after the blackout")
            let longest = try #require(gap, "frames around the blackout")
            // No packet arrives during the blackout, so the gap spans it, less the frames that
            // were already in Chromium's jitter buffer at its start (measured 0.29-0.52 s: 1 s); it ends with the
            // first frame after the reconnection, which waits for a key frame of the forwarded
            // layer (measured 1.6-2.9 s after didReconnect: bounded at 5 s).
            #expect(longest.before <= blackoutStart + 1 && longest.after >= blackoutEnd, "the longest gap is the blackout")
            #expect(longest.seconds >= blackout - 1 && longest.seconds <= blackout + reconnectedAfter + 5,
                    "gap \(longest.seconds) s within [\(blackout - 1), \(blackout + reconnectedAfter + 5)]")
            // WebRTC's side (the same inbound-rtp across the ICE restart): a gap of 5 s or more
            // is one pause in libwebrtc's counters, not a freeze; it must agree with the gap the
            // renderer saw within the issue's 1 s.
            if let webrtc, let before = freezesBefore, before.id == webrtc.id {
                #expect(webrtc.pauses == 1 && abs(webrtc.pauseSeconds - longest.seconds) <= 1,
                        "WebRTC's pause over the blackout \(webrtc) vs the renderer's gap \(longest.seconds) s")
            }
            #expect(renderer.frames(from: blackoutEnd, to: Date()).count >= 15, "frames resume after the reconnection")

            // 4. A renderer that takes 200 ms per frame: drops counted, queue bounded, memory flat.
            let slowStart = subscriber.videoOutput.stats
            let rssStart = Self.residentKilobytes()
            renderer.delay = .milliseconds(200)
            let slowOn = Date()
            var rssPeak = rssStart ?? 0
            var backlog: [Int] = []
            for _ in 0..<10 {
                try await Task.sleep(for: .seconds(1))
                rssPeak = max(rssPeak, Self.residentKilobytes() ?? 0)
                let stats = subscriber.videoOutput.stats
                backlog.append(stats.framesReceived - stats.framesRendered - stats.dropped(.rendererBusy))
            }
            let slowEnd = subscriber.videoOutput.stats
            let rssEnd = Self.residentKilobytes()
            renderer.delay = .zero
            let received = slowEnd.framesReceived - slowStart.framesReceived
            let rendered = renderer.frames(from: slowOn, to: Date()).count
            let busy = slowEnd.dropped(.rendererBusy) - slowStart.dropped(.rendererBusy)
            let growth = (rssEnd ?? 0) - (rssStart ?? 0)
            progress("renderer: 200 ms per frame for 10 s: received \(received), rendered \(rendered), rendererBusy +\(busy); waiting (received - rendered - dropped) \(backlog); "
                     + "VmRSS \(rssStart ?? -1) → \(rssEnd ?? -1) kB (peak \(rssPeak), growth \(growth) kB); stats \(slowEnd)")
            // 10 s at ≤ 5 renders a second: at most ~51 rendered, the rest of what came dropped.
            #expect(rendered <= 52, "the renderer's pace: \(rendered)")
            #expect(received >= 60 && busy >= received - 55, "drops counted: \(busy) of \(received)")
            // Waiting: the queue (queueLimit) plus the frame being rendered.
            #expect(backlog.allSatisfy { $0 >= 0 && $0 <= subscriber.videoOutput.queueLimit + 1 }, "bounded: \(backlog)")
            #expect(rssStart != nil && rssPeak - (rssStart ?? 0) < 50_000, "resident memory flat (< 50 MB growth): \(rssPeak - (rssStart ?? 0)) kB")
            #expect(slowEnd.dropped(.invalidFrame) == 0, "no invalid frame on the whole call: \(slowEnd.lastInvalidFrameReason ?? "")")
        }
    }
}
