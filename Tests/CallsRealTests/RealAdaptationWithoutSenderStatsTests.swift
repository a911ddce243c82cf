import Calls
import Foundation
import Observability
import Testing

/// The layer policy for any publisher (issue 23 item 2, docs/adaptation.md "Without sender
/// stats"): Alice publishes one layer (no simulcast, 960x540 at 15 fps) without sender stats,
/// Bob subscribes from `csrig-calls`; a `tc tbf` of 100 kbit/s on the root side of the veth (as
/// ``RealAdaptationTests`` caps) starves the only layer for 10 s. Bob's subscriber must warn,
/// pause the video (`videoDisabled(qualityChanged)`) and, once the cap is gone, probe it back
/// (`videoEnabled(qualityChanged)`), never asking the router for a substream.
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc"),
                             "needs CALLSCOPE_REAL_NETNS=1, root, ip, tc (run under the rig lock)"))
struct RealAdaptationWithoutSenderStatsTests {
    @Test func aSingleLayerWithoutSenderStatsFallsBackToAudioAndComesBack() async throws {
        let media = LocalMediaSettings(frameRate: 15, encodings: [])
        let settings = CallPublisherSettings(name: "alice", media: media, senderStatsTrack: false)
        await TwoClientCall.run("single layer without sender stats", .init(namespaced: .bob, steady: .seconds(5), publisher: settings)) { call in
            let events = try #require(call.lifecycle)
            let subscriber = try #require(call.subscriber)
            #expect(subscriber.statsMonitor.latestSenderStats == nil, "no sender stats")
            progress("cap 100 kbit/s on for 10 s")
            try await RealAdaptationTests.cap(kbit: 100)
            let onset = Date()
            do {
                let warned = await events.wait(after: onset, .seconds(10)) { $0 == .videoDisableWarning }
                let disabled = await events.wait(after: onset, .seconds(10)) { $0 == .videoDisabled(.qualityChanged) }
                try await Task.sleep(for: .seconds(10) - .seconds(Date().timeIntervalSince(onset)))
                try await RealAdaptationTests.removeCap()
                let removed = Date()
                let enabled = await events.wait(after: removed, .seconds(25)) { $0 == .videoEnabled(.qualityChanged) }
                progress("events \(RealAdaptationTests.describe(events.all.map(\.1)))")
                let warnedAfter = try #require(warned, "videoDisableWarning within 10 s of the cap").timeIntervalSince(onset)
                let disabledAfter = try #require(disabled, "videoDisabled(qualityChanged) within 10 s of the cap").timeIntervalSince(onset)
                let enabledAfter = try #require(enabled, "videoEnabled(qualityChanged) within 25 s of the cap's end").timeIntervalSince(removed)
                progress(String(format: "warning %.2f s, videoDisabled %.2f s after the onset; videoEnabled %.2f s after the removal",
                                warnedAfter, disabledAfter, enabledAfter))
                #expect(!events.all.contains { if case .layerChanged = $0.1 { true } else { false } }, "one layer: no layer change")
            } catch {
                try? await RealAdaptationTests.removeCap()
                throw error
            }
        }
    }
}
