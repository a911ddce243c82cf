import CallScopeReplay
import Observability
import RTCStats
import Testing

/// A recording made with the layer policy running carries its decisions as event lines
/// (docs/network-condition.md); the replay applies each one's limit to the engine and returns it.
@Suite struct ReplayPolicyEventTests {
    /// Report `r` at 1000 + 1000·r ms on bob's `pc-1` (stream S1 of P1): video 100 packets per
    /// interval (30 lost in intervals 1…3; none, and no frame, while paused in 14…19), audio 50,
    /// none lost. Policy lines half a second after a report, so they apply from the next one.
    /// With `decidedLimits`, `subscriber.receiveLimit` lines take that place (the limit each
    /// decision implies) and the policy lines come `policyDelay` ms later, as the SDK's do when
    /// they wait for frames of the new layer.
    static func recording(policyEvents: Bool = true, limit: String = "downlink", decidedLimits: Bool = false, policyDelay: Int = 0) -> [UInt8] {
        var lines = [#"{"format":"webrtc-stats-recording","version":1,"interval_ms":1000,"publishers":[{"publisher":"P1","stream":"S1"}]}"#,
                     #"{"t":1000,"peer":"bob","pc":"pc-1","event":"subscriber-streams","data":{"streams":[{"publisher":"P1","stream":"S1"}]}}"#]
        let events: [Int: String] = [
            4: #""event":"subscriber.layerChanged","data":{"substream":0,"temporal":2,"limit":"\#(limit)"}"#,
            12: #""event":"subscriber.videoDisableWarning","data":{}"#,
            13: #""event":"subscriber.videoDisabled","data":{"reason":"qualityChanged"}"#,
            19: #""event":"subscriber.videoEnabled","data":{"reason":"qualityChanged"}"#,
            24: #""event":"subscriber.layerChanged","data":{"substream":2,"temporal":2,"limit":"none"}"#,
        ]
        let decisions: [Int: String] = [4: limit, 13: "paused", 19: limit, 24: "none"]
        var lost = 0, received = 0, frames = 0
        for report in 0..<32 {
            let t = 1000 + 1000 * report
            let paused = (14...19).contains(report)
            if report > 0 {
                let intervalLost = (1...3).contains(report) ? 30 : 0
                lost += intervalLost
                received += paused ? 0 : 100 - intervalLost
                frames += paused ? 0 : 30
            }
            lines.append(#"{"t":\#(t),"peer":"bob","pc":"pc-1","report":[{"id":"IV","type":"inbound-rtp","timestamp":\#(t),"kind":"video","mid":"1","bytesReceived":\#(1000 * received),"packetsReceived":\#(received),"packetsLost":\#(lost),"framesDecoded":\#(frames),"frameWidth":640,"frameHeight":360},{"id":"IA","type":"inbound-rtp","timestamp":\#(t),"kind":"audio","mid":"0","bytesReceived":\#(5000 * report),"packetsReceived":\#(50 * report),"packetsLost":0}]}"#)
            if decidedLimits, let decided = decisions[report] {
                lines.append(#"{"t":\#(t + 500),"peer":"bob","pc":"pc-1","event":"subscriber.receiveLimit","data":{"limit":"\#(decided)","stream":"S1"}}"#)
            }
            if policyEvents, let event = events[report] { lines.append(#"{"t":\#(t + 500 + policyDelay),"peer":"bob","pc":"pc-1",\#(event)}"#) }
        }
        return Array(lines.joined(separator: "\n").utf8)
    }

    struct Replayed {
        var policy: [SubscriberPolicyEvent] = []
        /// Per report: the degradation source.
        var sources: [NetworkDegradationSource] = []
        /// Report number → condition event "condition/reason".
        var conditionEvents: [Int: String] = [:]
        var qualityEvents = 0
        var last: SubscriberVideoNetworkStats?
        var unreadable = 0
    }

    static func replay(_ bytes: [UInt8]) throws -> Replayed {
        let timeline = try StatsTimeline.read(bytes)
        var driver = ReplayDriver(timeline: timeline)
        var result = Replayed()
        for item in timeline.items {
            let output = driver.replay(item)
            if let event = output.policyEvent { result.policy.append(event) }
            for callback in output.callbacks {
                let report = Int((callback.time - 1000) / 1000)
                switch callback.event {
                case .subscriberMediaLinkStatsUpdated(let link): result.sources.append(link.networkDegradationSource)
                case .subscriberNetworkConditionChanged(let link, let reason):
                    result.conditionEvents[report] = "\(link.transport.networkCondition.rawValue)/\(reason.rawValue)"
                case .subscriberVideoQualityChanged: result.qualityEvents += 1
                case .subscriberVideoNetworkStatsUpdated(let stats): result.last = stats
                default: break
                }
            }
        }
        result.unreadable = driver.unreadablePolicyEvents
        return result
    }

    /// Worked by hand (loss over two intervals, judged two reports late; interval loss 30/150 =
    /// 20 %, so intervals 1–2 and 2–3 are 20 %, 3–4 is 10 %):
    /// - report 4: critical / packetLoss (the first level);
    /// - `.downlink` from report 5: floored candidates from 6, warning / bandwidth at 10;
    /// - `.paused` (audio fallback) from 14: floored as under `.downlink`, so warning / bandwidth
    ///   stays (the audio alone loses nothing, but the downlink is still what cannot carry the video);
    /// - `videoEnabled` returns to `.downlink` from 20: no change;
    /// - `none` from 25: excellent after 5, at 29.
    /// The 6 s without frames (last progress at report 13, frames again at 20) is one pause of
    /// 6000 ms and no quality event.
    @Test func policyEventsSetTheLimitAndAreReturned() throws {
        let replayed = try Self.replay(Self.recording())
        #expect(replayed.policy.map(\.name) == ["subscriber.layerChanged", "subscriber.videoDisableWarning", "subscriber.videoDisabled",
                                                "subscriber.videoEnabled", "subscriber.layerChanged"])
        #expect(replayed.policy.map(\.limit) == [.downlink, .downlink, .paused, .downlink, .none])
        #expect(replayed.policy.map(\.time) == [5500, 13500, 14500, 20500, 25500])
        #expect(replayed.policy.allSatisfy { $0.stream == StreamID("S1") && $0.publisher == PublisherID("P1") && $0.peerConnection == PeerConnectionID("pc-1") })
        #expect(replayed.policy[2].data["reason"]?.string == "qualityChanged")

        #expect(replayed.conditionEvents == [4: "critical/packetLoss", 10: "warning/bandwidth", 29: "excellent/none"])
        #expect(replayed.sources.count == 32)
        var expected = [NetworkDegradationSource](repeating: .none, count: 32)
        // Reports 1…3: no level yet, no sender stats, and 20 % loss is a poor video: unknown.
        for report in 1...3 { expected[report] = .unknown }
        for report in 4...28 { expected[report] = .local }
        #expect(replayed.sources == expected)
        #expect(replayed.qualityEvents == 0)
        let last = try #require(replayed.last)
        #expect(last.pauseCount == 1)
        #expect(abs(last.totalPausesDuration - 6000) < 1e-6)
        #expect(last.freezeCount == 0)
        #expect(replayed.unreadable == 0)
    }

    /// The same recording without the policy lines: the loss ends at interval 3, so the downlink
    /// recovers at report 10 (5 better samples), the stall without sender stats is a poor video
    /// (source unknown) and fires a quality event when the 5 s pause begins (report 18) and ends (20).
    @Test func withoutThePolicyLinesTheSameReportsRecover() throws {
        let replayed = try Self.replay(Self.recording(policyEvents: false))
        #expect(replayed.policy.isEmpty)
        #expect(replayed.conditionEvents == [4: "critical/packetLoss", 10: "excellent/none"])
        #expect(replayed.sources[12] == .none)
        #expect(replayed.sources[16] == .unknown)
        #expect(replayed.qualityEvents == 2)
    }

    /// The limits recorded when decided (`subscriber.receiveLimit`) hold from their time, and
    /// the policy lines that come 6.2 s later change nothing (the late `videoEnabled` would set
    /// `.downlink` after the decided `none`): the replay is the one whose policy lines came at
    /// decision time (the test above, worked by hand). Without those lines the late policy
    /// lines give another replay.
    @Test func limitsRecordedWhenDecidedHoldAndTheLaterPolicyLinesChangeNothing() throws {
        let atDecision = try Self.replay(Self.recording())
        let decided = try Self.replay(Self.recording(decidedLimits: true, policyDelay: 6200))
        #expect(decided.conditionEvents == atDecision.conditionEvents)
        #expect(decided.sources == atDecision.sources)
        #expect(decided.qualityEvents == atDecision.qualityEvents)
        #expect(decided.last == atDecision.last)
        // Returned with the limit in force when they came.
        #expect(decided.policy.map(\.time) == [11700, 19700, 20700, 26700, 31700])
        #expect(decided.policy.map(\.limit) == [.downlink, .paused, .downlink, .none, .none])
        #expect(decided.unreadable == 0)

        let late = try Self.replay(Self.recording(policyDelay: 6200))
        #expect(late.sources != atDecision.sources)
    }

    /// A decided limit that is not a known one is counted and changes nothing: until the first
    /// known one (`paused` at 14.5 s, from report 14) the replay is the one without any policy line.
    @Test func anUnknownDecidedLimitIsCountedAndIgnored() throws {
        let replayed = try Self.replay(Self.recording(policyEvents: false, limit: "sideways", decidedLimits: true))
        let unlimited = try Self.replay(Self.recording(policyEvents: false))
        #expect(replayed.unreadable == 2)
        #expect(replayed.conditionEvents.filter { $0.key <= 13 } == unlimited.conditionEvents.filter { $0.key <= 13 })
        #expect(replayed.sources.prefix(14) == unlimited.sources.prefix(14))
    }

    /// An unknown limit is counted and changes nothing (the stream stays unlimited until
    /// `videoDisabled`).
    @Test func anUnknownLimitIsCountedAndIgnored() throws {
        let replayed = try Self.replay(Self.recording(limit: "sideways"))
        #expect(replayed.unreadable == 1)
        #expect(replayed.policy.map(\.limit) == [.none, .none, .paused, .none, .none])
        #expect(replayed.policy[0].unreadable)
        #expect(replayed.conditionEvents[10] == "excellent/none")
    }
}
