import Calls
import CallScopeCore
import Foundation
import Observability
import RTCStats
import Testing

/// A publisher that stops sending is not my network (issue 23 item 1, docs/network-condition.md):
/// Alice publishes from `csrig-calls`, Bob subscribes from the root namespace. Her uplink is
/// dropped (iptables OUTPUT in her namespace) for 7 s and restored; then her Chromium is killed
/// with SIGKILL (no leave: Janus notices only after its own timeout). Each time Bob's subscriber
/// must say `videoDisabled(publisherPropertyChanged)` within 10 s, report the source `remote`
/// or `unknown` (never `local` or `bothOrUnclear`), never the reason `packetLoss` or
/// `bandwidth` for its own downlink, and keep its downlink estimate (nothing offered is no
/// capacity). Run for a publisher with sender stats and one without (the default).
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled, "needs CALLSCOPE_REAL_NETNS=1, root, ip, iptables (run under the rig lock)"))
struct RealPublisherStopTests {
    @Test(arguments: [true, false])
    func aPublisherThatStopsIsRemote(senderStats: Bool) async throws {
        let settings = CallPublisherSettings(name: "alice", media: TwoClientCall.media, senderStatsTrack: senderStats)
        await TwoClientCall.run("publisher stop, sender stats \(senderStats)", .init(namespaced: .alice, publisher: settings)) { call in
            let namespace = try #require(call.namespace)
            let events = try #require(call.lifecycle)
            let stats = try #require(call.subscriberStats)
            await Self.recordBob(call, scenario: "publisher-stop-sender-stats-\(senderStats)")
            let estimateBefore = Self.links(stats, from: .distantPast).last?.transport.connectionEstimatedBandwidth ?? 0

            // 1. Her uplink dies.
            try await namespace.startUplinkBlackout()
            let dropped = Date()
            progress("uplink dropped at \(Self.unixMilliseconds(dropped))")
            let disabled = await events.wait(after: dropped, .seconds(10)) { $0 == .videoDisabled(.publisherPropertyChanged) }
            try await Task.sleep(for: .seconds(7) - .seconds(Date().timeIntervalSince(dropped)))
            try await namespace.endUplinkBlackout()
            let restored = Date()
            progress("uplink restored at \(Self.unixMilliseconds(restored))")
            Self.check(stats, from: dropped, to: restored, estimateBefore: estimateBefore, scenario: "uplink dropped")
            let disabledAfter = try #require(disabled, "videoDisabled(publisherPropertyChanged) within 10 s of the uplink drop").timeIntervalSince(dropped)
            progress("uplink dropped (sender stats \(senderStats)): videoDisabled(publisherPropertyChanged) after \(String(format: "%.2f", disabledAfter)) s")
            let enabled = await events.wait(after: restored, .seconds(15)) { $0 == .videoEnabled(.publisherPropertyChanged) }
            let enabledAfter = try #require(enabled, "videoEnabled(publisherPropertyChanged) within 15 s of the uplink's return").timeIntervalSince(restored)
            progress("uplink restored: videoEnabled(publisherPropertyChanged) after \(String(format: "%.2f", enabledAfter)) s")
            try await Task.sleep(for: .seconds(1))

            // 2. Her Chromium is killed outright.
            let estimateLive = Self.links(stats, from: .distantPast).last?.transport.connectionEstimatedBandwidth ?? 0
            let killedCount = try await namespace.killEverythingInside()
            let killed = Date()
            progress("publisher killed at \(Self.unixMilliseconds(killed))")
            try #require(killedCount > 0, "a Chromium ran in the namespace")
            let disabledAgain = await events.wait(after: killed, .seconds(10)) { $0 == .videoDisabled(.publisherPropertyChanged) }
            try await Task.sleep(for: .seconds(7) - .seconds(Date().timeIntervalSince(killed)))
            Self.check(stats, from: killed, to: Date(), estimateBefore: estimateLive, scenario: "publisher killed")
            progress("subscriber events from the uplink drop: " + events.all.filter { $0.0 >= dropped }
                .map { String(format: "%+.2f s ", $0.0.timeIntervalSince(dropped)) + "\($0.1)" }.joined(separator: ", "))
            let killedAfter = try #require(disabledAgain, "videoDisabled(publisherPropertyChanged) within 10 s of the SIGKILL").timeIntervalSince(killed)
            progress("publisher killed (sender stats \(senderStats)): videoDisabled(publisherPropertyChanged) after \(String(format: "%.2f", killedAfter)) s")
        }
    }

    static func unixMilliseconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970 * 1000) }

    /// With `CALLSCOPE_PUBLISHER_STOP_RECORD=<directory>`, records what Bob's session fed its
    /// monitors to `<directory>/<scenario>-<unix ms>.ndjson` (`callscope replay` reads it): the
    /// reports around each stop, to study a failure. Nothing is written otherwise. (The file stays
    /// open to the end of the process: lines still come while the call tears down.)
    static func recordBob(_ call: TwoClientCall, scenario: String) async {
        guard let directory = ProcessInfo.processInfo.environment["CALLSCOPE_PUBLISHER_STOP_RECORD"] else { return }
        let path = "\(directory)/\(scenario)-\(unixMilliseconds(Date())).ndjson"
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil,
              FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else { return }
        let output = Locked(file)
        let writer = RecordingWriter { line in output.withLock { $0.write(Data(line)) } }
        writer.writeHeader(RecordingHeader(scenario: scenario, browser: "chromium", sfu: "janus", intervalMilliseconds: 1000))
        await call.bob.record(to: writer, peer: "bob")
        progress("recording Bob's session to \(path)")
    }

    static func links(_ stats: Timed<StatsCallback>, from start: Date, to end: Date = .distantFuture) -> [SubscriberMediaLinkStats] {
        stats.all.compactMap { item in
            guard item.0 >= start, item.0 <= end, case .subscriberMediaLinkStatsUpdated(let link) = item.1.event else { return nil }
            return link
        }
    }

    /// What the subscriber reported between `start` and `end`: never its own downlink's fault.
    static func check(_ stats: Timed<StatsCallback>, from start: Date, to end: Date, estimateBefore: Double, scenario: String) {
        let links = links(stats, from: start, to: end)
        #expect(links.count >= 5, "\(scenario): stats kept coming")
        let sources = links.map(\.networkDegradationSource.rawValue)
        progress("\(scenario): sources \(sources.joined(separator: " ")), downlink \(links.map { "\($0.transport.networkCondition.rawValue)/\($0.transport.networkConditionReason.rawValue)" }.joined(separator: " "))")
        for link in links {
            #expect(link.networkDegradationSource != .local && link.networkDegradationSource != .bothOrUnclear, "\(scenario): \(link)")
            #expect(!link.transport.networkCondition.isDegraded, "\(scenario): the downlink is not at fault: \(link.transport)")
            #expect(link.transport.connectionEstimatedBandwidth >= min(estimateBefore, 100_000), "\(scenario): the estimate is no RTCP rate: \(link.transport)")
        }
        #expect(links.suffix(3).allSatisfy { $0.networkDegradationSource == .remote }, "\(scenario): remote once the stop is told")
    }
}
