import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// The receive limit the SDK's layer policy sets (docs/network-condition.md), on synthetic reports whose
/// expected conditions are worked out by hand from the engine's rules:
/// - each report `r` (at `r` s) closes interval `r`; video: 100 packets expected per interval,
///   `lost[r]` of them lost; audio (when on): 50 packets, none lost;
/// - no candidate pair and no sender stats, so only loss scores (no estimate, no headroom) and
///   the remote uplink is `unknown`;
/// - interval `k` is judged at report `k + 2` (lookahead 2), on the loss over intervals
///   `k − 1` and `k` (loss window 2); report 0 has no interval, so the first judged interval
///   with media is interval 1 (report 3), the first adopted level interval 2 (report 4);
/// - loss < 1 % excellent, < 15 % warning (the tuned default), else critical; a worse level
///   after 2 samples (critical at once), a better one after 5;
/// - a throughput collapse (fewer than 70 % of the recent peak received) with ≥ 5 % loss is
///   queueing: reason `bandwidth`, else `packetLoss`.
@Suite struct ReceiveLimitTests {
    /// One report's interval: video packets lost of 100, the limit in force when it is fed,
    /// frames decoded in it (video paused when 0).
    struct Interval {
        var lost: Double = 0
        var limit: SubscriberReceiveLimit = .none
        var frames: Double = 30
    }

    /// What one report produced for the stream.
    struct Outcome {
        var condition: NetworkCondition
        var reason: NetworkConditionReason
        var source: NetworkDegradationSource
        var remote: NetworkCondition
        var conditionEvent: (NetworkCondition, NetworkConditionReason)?
        var qualityEvents: [SubscriberVideoEventReason]
        var video: SubscriberVideoNetworkStats?
        var measured: TransportStats?
    }

    /// Feeds `intervals` (index = report number), setting each report's limit before it.
    static func run(_ intervals: [Interval], audio: Bool = false, w3c: (Int) -> [String: Any]? = { _ in nil }) -> [Outcome] {
        var engine = CallStatsEngine()
        let endpoint = EndpointID("subscriber")
        var lost = 0.0, received = 0.0, frames = 0.0
        var outcomes: [Outcome] = []
        for (index, interval) in intervals.enumerated() {
            let time = Double(index) * 1000
            if index > 0 {
                lost += interval.lost
                received += interval.frames > 0 ? 100 - interval.lost : 0
                frames += interval.frames
            }
            engine.setReceiveLimit(interval.limit, endpoint: endpoint)
            var fields: [String: Any] = ["kind": "video", "mid": "1", "bytesReceived": received * 1000, "packetsReceived": received, "packetsLost": lost,
                                         "framesDecoded": frames, "frameWidth": 640, "frameHeight": 360, "codecId": "COV"]
            if let extra = w3c(index) { fields.merge(extra) { $1 } }
            var entries = [Synthetic.vp8Codec(at: time), Synthetic.entry("IV", .inboundRTP, at: time, fields)]
            if audio {
                entries.append(Synthetic.entry("IA", .inboundRTP, at: time, ["kind": "audio", "mid": "0", "bytesReceived": Double(index) * 5000,
                                                                              "packetsReceived": Double(index) * 50, "packetsLost": 0]))
            }
            let callbacks = engine.ingest(Synthetic.sample("subscriber", at: time, entries))
            var outcome = Outcome(condition: .unknown, reason: .unknown, source: .none, remote: .unknown, qualityEvents: [])
            for callback in callbacks {
                switch callback.event {
                case .subscriberMediaLinkStatsUpdated(let link):
                    outcome.condition = link.transport.networkCondition
                    outcome.reason = link.transport.networkConditionReason
                    outcome.source = link.networkDegradationSource
                    outcome.remote = link.remotePublisherTransport.networkCondition
                case .subscriberNetworkConditionChanged(let link, let reason):
                    outcome.conditionEvent = (link.transport.networkCondition, reason)
                case .subscriberVideoQualityChanged(_, let reason):
                    outcome.qualityEvents.append(reason)
                case .subscriberVideoNetworkStatsUpdated(let stats):
                    outcome.video = stats
                default:
                    break
                }
            }
            outcome.measured = engine.measuredDownlink(endpoint: endpoint)
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Reports numbered from 0: `count` intervals, `lost` in `lossy`, `limit` in `limited`.
    static func timeline(_ count: Int, lost: [ClosedRange<Int>: Double] = [:], limits: [(ClosedRange<Int>, SubscriberReceiveLimit)] = [],
                         paused: ClosedRange<Int>? = nil) -> [Interval] {
        (0..<count).map { index in
            var interval = Interval()
            for (range, value) in lost where range.contains(index) { interval.lost = value }
            for (range, limit) in limits where range.contains(index) { interval.limit = limit }
            if let paused, paused.contains(index) { interval.frames = 0 }
            return interval
        }
    }

    static func events(_ outcomes: [Outcome]) -> [Int: String] {
        var events: [Int: String] = [:]
        for (index, outcome) in outcomes.enumerated() {
            if let (condition, reason) = outcome.conditionEvent { events[index] = "\(condition.rawValue)/\(reason.rawValue)" }
        }
        return events
    }

    // MARK: - After a step-down

    /// Loss 20 % in intervals 1…3, then none; the policy steps down and sets `.downlink` from
    /// report 5, clears it at report 21.
    /// - report 4 (intervals 1–2: 40/200 = 20 %): critical / packetLoss, the first level;
    /// - report 6 (3–4: 10 % → warning, floored to warning / bandwidth) … report 10 (5 better
    ///   in a row): warning / bandwidth, source local, though intervals 4… lost nothing;
    /// - report 21… no floor: excellent after 5, at report 25; source none.
    /// Without the limit the same reports recover to excellent at report 10.
    @Test func aDownlinkLimitKeepsTheSourceLocalAfterTheLossIsGone() throws {
        let limited = Self.run(Self.timeline(30, lost: [1...3: 20], limits: [(5...20, .downlink)]))
        #expect(Self.events(limited) == [4: "critical/packetLoss", 10: "warning/bandwidth", 25: "excellent/none"])
        for report in 10...24 {
            #expect((limited[report].condition, limited[report].reason, limited[report].source) == (.warning, .bandwidth, .local), "report \(report)")
        }
        #expect(limited[25].source == .none)
        // The counters alone say the downlink recovered: what the policy must decide on.
        #expect(limited[15].measured?.networkCondition == .excellent)

        let free = Self.run(Self.timeline(30, lost: [1...3: 20]))
        #expect(Self.events(free) == [4: "critical/packetLoss", 10: "excellent/none"])
        #expect(free[15].source == .none)
    }

    /// A table of hand-worked cases: intervals of loss, limits, and the expected condition,
    /// reason and source at the last report (report 19).
    @Test(arguments: [
        // Steady loss of 10 % (warning / packetLoss) under `.downlink` is reported as bandwidth.
        ("loss 10 % under .downlink", [1...19: 10.0], [(1...19, SubscriberReceiveLimit.downlink)], NetworkCondition.warning, NetworkConditionReason.bandwidth, NetworkDegradationSource.local),
        ("loss 10 % without limit", [1...19: 10.0], [], .warning, .packetLoss, .local),
        // Heavier than the floor: the measured level stands (critical after 5 under the limit).
        ("loss 30 % under .downlink", [1...19: 30.0], [(1...19, .downlink)], .critical, .packetLoss, .local),
        // A limit set on a clean downlink: warning after 2 samples.
        ("clean under .downlink", [:], [(1...19, .downlink)], .warning, .bandwidth, .local),
        // The publisher offers no more: remote / bandwidth without any sender stats.
        ("clean under .publisher", [:], [(1...19, .publisher)], .excellent, .none, .remote),
        // Both: our downlink loses 10 % while the publisher dropped layers.
        ("loss 10 % under .publisher", [1...19: 10.0], [(1...19, .publisher)], .warning, .packetLoss, .bothOrUnclear),
        // Cleared: back to what the counters say.
        ("clean, .downlink cleared at 10", [:], [(1...9, .downlink)], .excellent, .none, .none),
        ("clean, .publisher cleared at 10", [:], [(1...9, .publisher)], .excellent, .none, .none),
    ])
    func limitsSetTheSource(name: String, lost: [ClosedRange<Int>: Double], limits: [(ClosedRange<Int>, SubscriberReceiveLimit)],
                            condition: NetworkCondition, reason: NetworkConditionReason, source: NetworkDegradationSource) throws {
        let last = try #require(Self.run(Self.timeline(20, lost: lost, limits: limits)).last)
        #expect(last.condition == condition, "\(name)")
        #expect(last.reason == reason, "\(name)")
        #expect(last.source == source, "\(name)")
    }

    /// `.publisher` from report 6 to 11 on a clean downlink (excellent from report 4): the remote
    /// uplink is warning / bandwidth meanwhile (source remote), and each edge is one condition
    /// event (the downlink's level, the reason that matters: the publisher's bandwidth, then none).
    @Test func aPublisherLimitIsRemoteBandwidthWithoutSenderStats() {
        let outcomes = Self.run(Self.timeline(16, limits: [(6...11, .publisher)]))
        #expect(Self.events(outcomes) == [4: "excellent/none", 6: "excellent/bandwidth", 12: "excellent/none"])
        #expect(outcomes[5].source == .none)
        for report in 6...11 { #expect((outcomes[report].remote, outcomes[report].source) == (.warning, .remote), "report \(report)") }
        #expect((outcomes[12].remote, outcomes[12].source) == (.unknown, .none))
    }

    // MARK: - Events under a steady cap

    /// A 60 s cap from interval 6 (35 lost of 100: 65 received, below 70 % of the peak of 100,
    /// so queueing → bandwidth). The policy sees the measured critical at reports 8 and 9 and
    /// steps down: `.downlink` from report 10, no loss after interval 7. It probes up twice
    /// (hold 10 s, then 20 s): no limit at reports 18…20 and 41…43, and each probe loses 40 %
    /// in its last two intervals before the policy steps back (limit again from 21 and 44).
    /// The cap ends at report 66 (limit none, clean).
    /// - report 8 (intervals 5–6: 35/200 = 17.5 %): critical / bandwidth at once (first event);
    /// - reports 11…15: floored candidates warning / bandwidth, the 5th better one adopts (event);
    /// - probe 1: reports 18…20 excellent (3 better, not 5); 21…23 critical (intervals 19–21:
    ///   20 %, 40 %, 20 %), which under the managed impairment needs 5 in a row; report 24 is the
    ///   floor again: nothing adopted, no event. Probe 2 the same;
    /// - reports 66…70: excellent, adopted at 70 (event).
    /// So 2 events in the 60 s of the cap, the second 7 s after the first: at most one per 30 s
    /// after the first.
    @Test func aSteadyCapWithFailedProbesFiresTwoEvents() {
        let lost: [ClosedRange<Int>: Double] = [6...7: 35, 19...20: 40, 42...43: 40]
        let limits: [(ClosedRange<Int>, SubscriberReceiveLimit)] = [(10...17, .downlink), (21...40, .downlink), (44...65, .downlink)]
        let outcomes = Self.run(Self.timeline(75, lost: lost, limits: limits))
        #expect(Self.events(outcomes) == [4: "excellent/none", 8: "critical/bandwidth", 15: "warning/bandwidth", 70: "excellent/none"])
        for report in 15...69 { #expect(outcomes[report].source == .local, "report \(report)") }
        // Between the probes the counters say excellent, so the policy may step up again.
        #expect(outcomes[30].measured?.networkCondition == .excellent)
        // Without the limit: critical at once at 8, its reason turns packetLoss at 10 (interval 8
        // lost nothing: no queueing), excellent after 5 clean at 15, and each probe the same
        // three (21, 23, 28 and 44, 46, 51): 9 events in the cap, source none between probes.
        let free = Self.run(Self.timeline(75, lost: lost))
        #expect(Self.events(free) == [4: "excellent/none", 8: "critical/bandwidth", 10: "critical/packetLoss", 15: "excellent/none",
                                      21: "critical/bandwidth", 23: "critical/packetLoss", 28: "excellent/none",
                                      44: "critical/bandwidth", 46: "critical/packetLoss", 51: "excellent/none"])
        #expect(free[30].source == .none)
    }

    /// Under `.downlink`, a worsening that outlasts the policy's reaction is still reported:
    /// 30 % loss from interval 16 on, limit throughout from report 5 (warning / bandwidth
    /// from report 6, after 2 samples): critical candidates from report 18, the 5th adopts at 22.
    @Test func aLastingWorseningUnderTheLimitIsStillReported() {
        let outcomes = Self.run(Self.timeline(26, lost: [16...25: 30], limits: [(5...25, .downlink)]))
        #expect(Self.events(outcomes) == [4: "excellent/none", 6: "warning/bandwidth", 22: "critical/packetLoss"])
    }

    /// `.publisher` starts no managed episode (the policy does not probe this downlink): 30 %
    /// loss from interval 10 under it is critical at once (intervals 9–10: 15 %). The remote
    /// uplink has been degraded (the limit) since report 5, for more than the lookahead's two
    /// reports by report 7, so from then on each interval is judged at its own report
    /// (issue 23 item 6): the event comes at report 10 (at report 12 before).
    @Test func aPublisherLimitDoesNotHoldBackTheDownlinksCritical() {
        let outcomes = Self.run(Self.timeline(16, lost: [10...15: 30], limits: [(5...15, .publisher)]))
        #expect(Self.events(outcomes)[10] == "critical/packetLoss")
        #expect(outcomes[10].source == .bothOrUnclear)
    }

    // MARK: - Our pauses

    /// Video switched off on purpose (`.videoOff`: `subscribeToVideo = false`) over intervals
    /// 6…13 (8 s, no video packets, no frames), audio flowing, frame counters only. The
    /// downlink measures no loss (the audio's), so the condition stays excellent with no event;
    /// no quality event fires for the missing video and the source stays none; the 8 s gap
    /// counts as one pause (docs/spec/observability.md §3: audio
    /// fallback counts as a pause) of max(13 − 5, 14 − 5 − 30 × 1/30) s = 8000 ms (the frame
    /// counter's rule: from the last progress, report 5, to the last report without frames, or
    /// to the first with frames minus the new frames' time at 30 fps).
    /// Without the limit the same stall is a poor video without sender stats (source unknown)
    /// and fires `qualityChanged` when the 5 s pause begins and when it ends.
    @Test func videoSwitchedOffIsNoFreezeNoQualityEventNoNetworkEvent() throws {
        let intervals = Self.timeline(20, limits: [(6...13, .videoOff)], paused: 6...13)
        let paused = Self.run(intervals, audio: true)
        #expect(Self.events(paused) == [4: "excellent/none"])
        #expect(paused.allSatisfy { $0.qualityEvents.isEmpty })
        for report in 4...19 { #expect(paused[report].source == .none, "report \(report)") }
        let video = try #require(paused.last?.video)
        #expect(video.pauseCount == 1)
        #expect(abs(video.totalPausesDuration - 8000) < 1e-6)
        #expect(video.freezeCount == 0)

        let free = Self.run(Self.timeline(20, paused: 6...13), audio: true)
        #expect(free[10].source == .unknown)
        #expect(free.flatMap(\.qualityEvents) == [.qualityChanged, .qualityChanged])
    }

    /// The same 8 s gap as audio fallback (`.paused` over reports 6…13): still no freeze and no
    /// quality event, but the downlink is what cannot carry the video, so it is scored as under
    /// `.downlink`: floored candidates from report 6, warning / bandwidth after 2 samples (at 7),
    /// source local; the limit cleared from 14, excellent after 5 clean samples (at 18).
    @Test func audioFallbackKeepsTheDownlinkTheCause() throws {
        let paused = Self.run(Self.timeline(20, limits: [(6...13, .paused)], paused: 6...13), audio: true)
        #expect(Self.events(paused) == [4: "excellent/none", 7: "warning/bandwidth", 18: "excellent/none"])
        #expect(paused.allSatisfy { $0.qualityEvents.isEmpty })
        for report in 7...17 { #expect(paused[report].source == .local, "report \(report)") }
        let video = try #require(paused.last?.video)
        #expect(video.pauseCount == 1)
        #expect(video.freezeCount == 0)
    }

    /// W3C counters: a 3 s pause of ours (intervals 6…8) that the browser counts as a freeze
    /// when frames resume (report 9: freezeCount 1, 3 s) is not added; a later real freeze
    /// (report 15: freezeCount 2, +0.5 s) is.
    @Test func theBrowsersFreezeForOurPauseIsNotCounted() throws {
        let intervals = Self.timeline(18, limits: [(6...8, .paused)], paused: 6...8)
        let counters: (Int) -> [String: Any]? = { report in
            let freezes = report >= 15 ? 2 : report >= 9 ? 1 : 0
            let duration = report >= 15 ? 3.5 : report >= 9 ? 3.0 : 0
            return ["freezeCount": freezes, "totalFreezesDuration": duration, "pauseCount": 0, "totalPausesDuration": 0]
        }
        let outcomes = Self.run(intervals, audio: true, w3c: counters)
        #expect(outcomes[10].video?.freezeCount == 0)
        let last = try #require(outcomes.last?.video)
        #expect(last.freezeCount == 1)
        #expect(abs(last.totalFreezesDuration - 500) < 1e-6)
    }

    // MARK: - Through the monitor

    final class LinkCatcher: SubscriberNetworkStatsDelegate, @unchecked Sendable {
        // @unchecked: touched only from the test's own task, through the monitor's synchronous calls.
        var links: [SubscriberMediaLinkStats] = []
        func subscriber(_ monitor: SubscriberStatsMonitor, mediaLinkStatsUpdated stats: SubscriberMediaLinkStats) { links.append(stats) }
    }

    /// An app's monitor: clean reports 0…9 (excellent from report 4, the first level), the
    /// policy sets `.downlink` after report 4: floored candidates from report 5, warning /
    /// bandwidth after 2, at report 6; the counters alone still say excellent.
    @Test func theMonitorTakesTheLimitFromTheNextReport() throws {
        let monitor = SubscriberStatsMonitor()
        let catcher = LinkCatcher()
        monitor.delegate = catcher
        var measured: TransportStats?
        for report in 0..<10 {
            let time = Double(report) * 1000
            let entries = StatsReport(entries: [
                Synthetic.entry("IV", .inboundRTP, at: time, ["kind": "video", "bytesReceived": time * 100, "packetsReceived": time / 10, "packetsLost": 0]),
            ])
            // The last report as the SDK reads it, with the downlink measured alone.
            if report == 9 { measured = monitor.read(entries, peerConnection: "sub-1").measuredDownlink } else { monitor.ingest(entries, peerConnection: "sub-1") }
            if report == 4 { monitor.setReceiveLimit(.downlink) }
        }
        #expect(monitor.receiveLimit == .downlink)
        #expect(catcher.links.map(\.networkDegradationSource) == [.none, .none, .none, .none, .none, .none, .local, .local, .local, .local])
        let last = try #require(catcher.links.last)
        #expect((last.transport.networkCondition, last.transport.networkConditionReason) == (.warning, .bandwidth))
        #expect(measured?.networkCondition == .excellent)
    }
}
