@testable import callscope
import CallScopeExport
@testable import Observability
import Testing

/// `callscope probe`: what makes a call succeed, what its summary line says, the probe's own
/// metrics, and its options. Expected values worked out by hand from the callbacks below.
@Suite struct ProbeTests {
    // MARK: Fixtures

    private func publisherVideo(at time: Double, bytesSent: UInt64) -> StatsCallback {
        let stats = PublisherVideoNetworkStats(connectionId: "", subscriberId: "", videoPacketsLost: 0, videoPacketsSent: bytesSent / 1000,
                                               videoBytesSent: bytesSent, videoFrameRate: 30, timestamp: time, startTime: 0, videoLayers: [],
                                               transport: .unknown)
        return StatsCallback(time: time, endpoint: "publisher", peerConnection: "pc-1", event: .publisherVideoNetworkStatsUpdated([stats]))
    }

    private func publisherLink(at time: Double, _ condition: NetworkCondition) -> StatsCallback {
        let stats = PublisherMediaLinkStats(connectionId: "", subscriberId: "",
                                            transport: TransportStats(connectionEstimatedBandwidth: 1_000_000, networkCondition: condition, networkConditionReason: .none))
        return StatsCallback(time: time, endpoint: "publisher", peerConnection: "pc-1", event: .publisherMediaLinkStatsUpdated([stats]))
    }

    private func subscriberVideo(at time: Double, stream: String = "cam", bytes: UInt64, frameRate: Double) -> StatsCallback {
        let stats = SubscriberVideoNetworkStats(
            videoPacketsLost: 0, videoPacketsReceived: bytes / 1000, videoBytesReceived: bytes, timestamp: time, startTime: 0,
            senderStats: nil, width: 640, height: 360, decodedFrameRate: frameRate, bitrate: 0, totalBitrate: 0,
            pauseCount: 0, totalPausesDuration: 0, freezeCount: 0, totalFreezesDuration: 0, codec: "VP8")
        return StatsCallback(time: time, endpoint: "subscriber", peerConnection: "pc-2", stream: StreamID(stream), event: .subscriberVideoNetworkStatsUpdated(stats))
    }

    private func subscriberLink(at time: Double, downlink: NetworkCondition, remote: NetworkCondition, source: NetworkDegradationSource) -> StatsCallback {
        let stats = SubscriberMediaLinkStats(
            transport: TransportStats(connectionEstimatedBandwidth: 2_000_000, networkCondition: downlink, networkConditionReason: .none),
            remotePublisherTransport: TransportStats(connectionEstimatedBandwidth: 1_000_000, networkCondition: remote, networkConditionReason: .none),
            networkDegradationSource: source)
        return StatsCallback(time: time, endpoint: "subscriber", peerConnection: "pc-2", stream: "cam", event: .subscriberMediaLinkStatsUpdated(stats))
    }

    // MARK: Success

    @Test(arguments: [
        // publishing, subscribing, joined, sent, received, ok, problems
        (true, true, true, 5_000, 7_000, true, [String]()),
        (true, false, true, 5_000, 0, true, []),
        (false, true, true, 0, 7_000, true, []),
        (true, true, true, 5_000, 0, false, ["received no video"]),
        (true, true, true, 0, 7_000, false, ["sent no video"]),
        (false, true, false, 0, 0, false, ["did not join"]),
    ] as [(Bool, Bool, Bool, UInt64, UInt64, Bool, [String])])
    func aCallSucceedsWhenItJoinedAndMediaFlowedInEveryDirectionItAskedFor(
        publishing: Bool, subscribing: Bool, joined: Bool, sent: UInt64, received: UInt64, ok: Bool, problems: [String]
    ) {
        var outcome = CallOutcome(publishing: publishing, subscribing: subscribing)
        outcome.joined = joined
        if sent > 0 { outcome.ingest(publisherVideo(at: 1_000, bytesSent: sent)) }
        if received > 0 { outcome.ingest(subscriberVideo(at: 1_000, bytes: received, frameRate: 30)) }
        #expect(outcome.succeeded == ok)
        #expect(outcome.problems == problems)
    }

    @Test func aFailureThatStoppedTheCallIsItsFirstProblem() {
        var outcome = CallOutcome(publishing: true, subscribing: false)
        outcome.failure = "signalingUnavailable: join: connection refused"
        #expect(!outcome.succeeded)
        #expect(outcome.problems == ["signalingUnavailable: join: connection refused"])
    }

    // MARK: The summary line

    @Test func theLineNamesTheWorstJudgedConditionItsLinkAndSourceAndTheMeanFrameRateReceived() {
        var outcome = CallOutcome(publishing: true, subscribing: true)
        outcome.joined = true
        for callback in [
            publisherVideo(at: 1_000, bytesSent: 10_000),
            publisherLink(at: 1_000, .fair),
            subscriberVideo(at: 1_000, bytes: 0, frameRate: 0),         // nothing received yet: not in the mean
            subscriberLink(at: 1_000, downlink: .unknown, remote: .unknown, source: .unknown),
            subscriberVideo(at: 2_000, bytes: 40_000, frameRate: 24),
            subscriberLink(at: 2_000, downlink: .good, remote: .warning, source: .remote),
            subscriberVideo(at: 3_000, bytes: 90_000, frameRate: 30),
            subscriberLink(at: 3_000, downlink: .excellent, remote: .good, source: .none),
        ] { outcome.ingest(callback) }
        // Worst of fair (uplink), good and excellent (downlink), warning and good (remote uplink): warning.
        #expect(outcome.worst == CallOutcome.Worst(condition: .warning, link: .remoteUplink, source: .remote))
        #expect(outcome.receivedFrameRate == 27)                    // (24 + 30) / 2
        #expect(outcome.videoBytesReceived == 90_000)
        #expect(outcome.textLine(number: 2, seconds: 20)
                == "call 2 ok: joined, sent video, received video; worst warning (remote_uplink, source remote); 27.0 fps received; 20.0 s")
    }

    @Test func aFailedLineSaysWhy() {
        var outcome = CallOutcome(publishing: true, subscribing: false)
        outcome.failure = "engineUnavailable: the WebDriver endpoint http://10.0.0.9:4444 is not ready"
        #expect(outcome.textLine(number: 5, seconds: 1.25)
                == "call 5 FAILED: not joined, sent no video; no condition judged; 1.2 s — engineUnavailable: the WebDriver endpoint http://10.0.0.9:4444 is not ready")
    }

    @Test func receivedBytesAddUpOverStreamsEachAtItsHighestTotal() {
        var outcome = CallOutcome(publishing: false, subscribing: true)
        outcome.ingest(subscriberVideo(at: 1_000, stream: "a", bytes: 1_000, frameRate: 30))
        outcome.ingest(subscriberVideo(at: 2_000, stream: "a", bytes: 3_000, frameRate: 30))
        outcome.ingest(subscriberVideo(at: 2_000, stream: "b", bytes: 500, frameRate: 15))
        #expect(outcome.videoBytesReceived == 3_500)
    }

    // MARK: The probe's metrics

    private func value(_ families: [CallMetricFamily], _ descriptor: CallMetricDescriptor, result: String? = nil) -> Double? {
        families.first { $0.descriptor == descriptor }?.points.first { point in result.map { point.labels == [CallMetricLabel("result", $0)] } ?? true }?.value
    }

    @Test func theRecordCountsCallsByResultAndFailuresInARow() {
        var ok = CallOutcome(publishing: true, subscribing: false)
        ok.joined = true
        ok.ingest(publisherVideo(at: 1_000, bytesSent: 1_000))
        var failed = CallOutcome(publishing: true, subscribing: false)
        failed.failure = "refused"
        var record = ProbeRecord(interval: 60)
        #expect(value(record.families, .probeLastCallSucceeded) == nil)      // no call finished yet
        #expect(value(record.families, .probeConsecutiveFailures) == 0)
        for (outcome, end, inARow) in [(ok, 100.0, 0), (failed, 160, 1), (failed, 220, 2), (ok, 280, 0), (failed, 340, 1)] {
            record.record(outcome, end: end)
            #expect(value(record.families, .probeConsecutiveFailures) == Double(inARow))
        }
        let families = record.families
        #expect(value(families, .probeCalls, result: "succeeded") == 2)
        #expect(value(families, .probeCalls, result: "failed") == 3)
        #expect(value(families, .probeLastCallSucceeded) == 0)
        #expect(value(families, .probeLastCallEnd) == 340)
        #expect(value(families, .probeInterval) == 60)
        #expect(value(families, .probeLastCallFrameRate) == 0)
    }

    // MARK: Options

    @Test(arguments: [
        ["--janus", "http://127.0.0.1:8088/janus", "--every", "0"],
        ["--janus", "http://127.0.0.1:8088/janus", "--max-failures", "2.5"],
        ["--janus", "http://127.0.0.1:8088/janus", "--calls"],
        ["--janus", "http://127.0.0.1:8088/janus", "--record", "call.ndjson"],
        ["--janus", "http://127.0.0.1:8088/janus", "--webdriver", "ftp://grid:4444"],
        ["--janus", "http://127.0.0.1:8088/janus", "--webdriver", "http://grid:4444", "--chromium", "/usr/bin/chromium"],
        ["--every", "60"],
    ])
    func badOptionsAreUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { try ProbeCommand(arguments: arguments) }
    }

    @Test func optionsReachTheProbeAndItsCalls() throws {
        let probe = try ProbeCommand(arguments: ["--janus", "http://127.0.0.1:8088/janus", "--every", "90", "--max-failures", "5", "--calls", "12",
                                                 "--publish", "--subscribe", "none", "--webdriver", "http://grid.example:4444/wd/hub"])
        #expect(probe.every == 90)
        #expect(probe.maxFailures == 5)
        #expect(probe.calls == 12)
        #expect(probe.call.publish && probe.call.subscribe == .none)
        #expect(probe.call.chromium.webDriverURL?.absoluteString == "http://grid.example:4444/wd/hub")
    }
}
