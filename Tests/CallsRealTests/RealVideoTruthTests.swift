import CallScopeCore
import Calls
@testable import CallsChromium
import Foundation
import Observability
import RTCStats
import Testing
import VideoFrames

/// Received-video truth on a real call (issue 22 item 6, docs/video.md "Received-video truth"):
/// Alice's camera is a ``MarkerClip`` (960x540 at 15 fps, each frame carrying its index),
/// published as the rig's three VP8 layers through Janus; Bob subscribes from the
/// `csrig-calls` namespace. A ``VideoTruthProbe`` on Bob's subscriber and one on Alice's local
/// preview read every frame's index. One call, two phases: a clean interval (PSNR of the top
/// layer ≥ 30 dB) and an 8 s blackout of Bob's downlink, whose frame-measured stalls are
/// compared with WebRTC's own freeze and pause counters.
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled, "needs CALLSCOPE_REAL_NETNS=1, root, ip, iptables (run under the rig lock)"))
struct RealVideoTruthTests {
    /// Hands each frame to a probe with its arrival time (wall clock: both probes share it).
    final class ProbeRenderer: VideoRenderer {
        let probe: VideoTruthProbe
        init(_ probe: VideoTruthProbe) { self.probe = probe }
        func renderVideoFrame(_ frame: CallVideoFrame) { probe.observe(frame.frame, at: Date().timeIntervalSince1970) }
    }

    static func describe(_ summary: ReceivedVideoSummary) -> String {
        let quality = summary.quality.map { String(format: "%@ %d frames Y %.2f dB (min %.2f) U %.2f V %.2f", $0.size, $0.frames, $0.meanY, $0.minimumY, $0.meanU, $0.meanV) }
        let latency = summary.latency.map { String(format: "latency median %.0f ms (min %.0f, p95 %.0f, max %.0f, %d frames)", $0.median * 1000, $0.minimum * 1000, $0.percentile95 * 1000, $0.maximum * 1000, $0.count) } ?? "no latency"
        let stalls = { (list: [VideoStall]) in list.map { String(format: "%.3f", $0.duration) }.joined(separator: ",") }
        return "new \(summary.newFrames), delivered \(summary.delivered)/\(summary.sent) in \(String(format: "%.1f", summary.seconds)) s, "
            + "longest gap \(String(format: "%.3f", summary.longestGap?.duration ?? 0)) s, freezes [\(stalls(summary.freezes))], pauses [\(stalls(summary.pauses))], "
            + "sizes \(summary.sizes), unreadable \(summary.unreadable), repeated \(summary.repeated), late \(summary.late); "
            + "PSNR \(quality) (\(summary.qualitySkipped) not measured); \(latency)"
    }

    @Test(.timeLimit(.minutes(3)))
    func framesTellTheTruthOfACleanCallAndABlackout() async throws {
        let work = NSTemporaryDirectory() + "callscope-truth-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // A 10 s loop: longer than any latency, shorter than the 117 MB it already takes.
        let clip = try MarkerClip(width: 960, height: 540, frameRate: 15, frameCount: 150)
        let clipPath = work + "/marker-960x540.y4m"
        let made = ContinuousClock.now
        try clip.write(toPath: clipPath)
        progress("truth: marker clip written in \(ContinuousClock.now - made)")
        let settings = CallPublisherSettings(name: "alice", media: TwoClientCall.media, senderStatsTrack: true)
        await TwoClientCall.run("video truth", .init(namespaced: .bob, steady: .zero, publisher: settings, aliceCameraFile: clipPath)) { call in
            let subscriber = try #require(call.subscriber)
            let events = try #require(call.lifecycle)
            let namespace = try #require(call.namespace)
            // Bob's frame channel forwarded into his namespace (as RealRendererTests does).
            let bobChromium = call.bobChromium
            let probePC = try await bobChromium.makePeerConnection(.init())
            try await bobChromium.setVideoFrameSink({ _ in }, on: probePC)
            try await bobChromium.setVideoFrameSink(nil, on: probePC)
            try await bobChromium.closePeerConnection(probePC)
            let port = try #require(await bobChromium.frameChannel?.port)
            let forwarder = try NamespaceLoopbackForwarder(port: port)
            defer { forwarder.stop() }
            let received = VideoTruthProbe(clip: clip, label: "bob")
            let captured = VideoTruthProbe(clip: clip, label: "alice-preview", measuresQuality: false)
            subscriber.videoRenderer = ProbeRenderer(received)
            call.publisher.videoRenderer = ProbeRenderer(captured)

            // 1. Clean: wait for the top layer, then 6 s of it.
            let topBy = ContinuousClock.now + .seconds(25)
            while !received.timeline.newFrames.suffix(10).contains(where: { $0.width == 960 }), ContinuousClock.now < topBy {
                try await Task.sleep(for: .milliseconds(200))
            }
            let cleanStart = Date().timeIntervalSince1970
            try await Task.sleep(for: .seconds(6))
            let cleanEnd = Date().timeIntervalSince1970
            received.drain()
            let clean = received.summary(over: cleanStart...cleanEnd, capture: captured)
            let preview = captured.summary(over: cleanStart...cleanEnd)
            progress("truth: clean 6 s: \(Self.describe(clean))")
            progress("truth: Alice's preview over the same 6 s: new \(preview.newFrames), delivered \(preview.delivered)/\(preview.sent), unreadable \(preview.unreadable)")
            let top = try #require(clean.quality.first { $0.size == "960x540" }, "PSNR measured on the top layer: \(clean.quality)")
            #expect(top.frames >= 5 && top.meanY >= 30, "PSNR of the top layer \(top.meanY) dB over \(top.frames) frames")
            #expect(clean.sizes.keys.contains("960x540"))
            #expect(clean.sent >= 60 && clean.deliveredFraction >= 0.8, "delivered \(clean.delivered) of \(clean.sent)")
            #expect(preview.sent >= 75 && preview.deliveredFraction >= 0.95, "the camera's frames reach the preview: \(preview.delivered) of \(preview.sent)")
            #expect((clean.latency?.count ?? 0) >= clean.newFrames / 2, "latency matched for most frames: \(clean.latency?.count ?? 0) of \(clean.newFrames)")
            #expect(received.timeline.unreadable.values.reduce(0, +) <= received.timeline.framesObserved / 20,
                    "markers read on ≥ 95 % of the frames: unreadable \(received.timeline.unreadable) of \(received.timeline.framesObserved)")

            // 2. An 8 s blackout of Bob's downlink.
            let stream = subscriber.stream
            let webrtcBefore = RealRendererTests.Freezes.read(subscriber)
            let reconnectsBefore = events.all.filter { $0.1 == .didReconnect(stream) }.count
            let windowStart = Date().timeIntervalSince1970 - 3
            try await namespace.startBlackout()
            let blackoutStart = Date()
            progress("truth: blackout on for 8 s")
            try await Task.sleep(for: .seconds(8))
            try await namespace.endBlackout()
            let blackoutEnd = Date()
            _ = await events.wait(.seconds(20)) { _ in events.all.filter { $0.1 == .didReconnect(stream) }.count > reconnectsBefore }
            let framesBy = ContinuousClock.now + .seconds(12)
            while received.timeline.newFrames.filter({ $0.time > blackoutEnd.timeIntervalSince1970 }).count < 15, ContinuousClock.now < framesBy {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(2))       // the stats pump's next reports
            let webrtcAfter = RealRendererTests.Freezes.read(subscriber)
            received.drain()
            let around = received.summary(over: windowStart...Date().timeIntervalSince1970, capture: captured)
            let webrtc = try #require(webrtcBefore.flatMap { before in webrtcAfter.map { RealRendererTests.Freezes.since(before, $0) } }, "WebRTC's counters read")
            let blackout = blackoutEnd.timeIntervalSince(blackoutStart)
            progress("truth: blackout \(String(format: "%.2f", blackout)) s: frames \(Self.describe(around))")
            progress("truth: WebRTC over the same call span: \(webrtc) (before \(webrtcBefore.map(String.init(describing:)) ?? "none"))")
            // The frames' stalls against WebRTC's: as many, their durations in total within the
            // issue's 1 s per stall; then kind by kind (below).
            let frameStalls = around.freezes.count + around.pauses.count
            #expect(frameStalls == Int(webrtc.freezes + webrtc.pauses), "stalls: frames \(around.freezes.map(\.duration)) \(around.pauses.map(\.duration)) vs WebRTC \(webrtc)")
            #expect(abs(around.freezeSeconds + around.pauseSeconds - webrtc.freezeSeconds - webrtc.pauseSeconds) <= Double(max(frameStalls, 1)),
                    "stalled seconds: frames \(around.freezeSeconds + around.pauseSeconds) vs WebRTC \(webrtc.freezeSeconds + webrtc.pauseSeconds)")
            // libwebrtc calls a stall a pause once its inactivity timer fired during it, about 5 s
            // after the last frame: a stall within 0.5 s of 5 s falls on either side (a 5.07 s
            // stall, measured by the frames, was a WebRTC freeze in one CI run). Kind by kind only
            // without one.
            if !(around.freezes + around.pauses).contains(where: { abs($0.duration - FreezeDetector.pauseSeconds) < 0.5 }) {
                #expect(around.pauses.count == Int(webrtc.pauses), "pauses: frames \(around.pauses.map(\.duration)) vs WebRTC \(webrtc)")
                #expect(around.freezes.count == Int(webrtc.freezes), "freezes: frames \(around.freezes.map(\.duration)) vs WebRTC \(webrtc)")
                #expect(abs(around.pauseSeconds - webrtc.pauseSeconds) <= Double(max(around.pauses.count, 1)),
                        "pause seconds: frames \(around.pauseSeconds) vs WebRTC \(webrtc.pauseSeconds)")
                #expect(abs(around.freezeSeconds - webrtc.freezeSeconds) <= Double(max(around.freezes.count, 1)),
                        "freeze seconds: frames \(around.freezeSeconds) vs WebRTC \(webrtc.freezeSeconds)")
            }
            #expect(frameStalls >= 1)
            let gap = try #require(around.longestGap, "frames around the blackout")
            #expect(gap.duration >= blackout - 1 && gap.start <= blackoutStart.timeIntervalSince1970 + 1, "the longest gap is the blackout: \(gap)")
        }
    }
}
