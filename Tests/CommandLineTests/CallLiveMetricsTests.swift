@testable import callscope
import CallScopeCore
import CallScopeExport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Observability
import Testing

/// `callscope call --metrics-port/--push/--otlp`: the call's callbacks, fed through the call's
/// printer as a live call feeds them, scraped over HTTP after each interval; and a lost exporter.
/// Expected values worked out by hand from the callbacks below.
@Suite struct CallLiveMetricsTests {
    // MARK: Fixtures

    /// One interval of a subscriber to stream `cam`: its video totals, bitrate and link verdict.
    /// `connection` is the subscriber's peer connection (a reconnection gets a new one).
    private func interval(at time: Double, bytes: UInt64, packets: UInt64, bitrate: Double, condition: NetworkCondition,
                          source: NetworkDegradationSource = .none, connection: String = "sub-1") -> [StatsCallback] {
        let video = SubscriberVideoNetworkStats(
            videoPacketsLost: 0, videoPacketsReceived: packets, videoBytesReceived: bytes, timestamp: time, startTime: 0,
            senderStats: nil, width: 640, height: 360, decodedFrameRate: 30, bitrate: bitrate, totalBitrate: bitrate,
            pauseCount: 0, totalPausesDuration: 0, freezeCount: 0, totalFreezesDuration: 0, codec: "VP8")
        let link = SubscriberMediaLinkStats(
            transport: TransportStats(connectionEstimatedBandwidth: 2_000_000, networkCondition: condition, networkConditionReason: condition.isDegraded ? .packetLoss : .none),
            remotePublisherTransport: TransportStats(connectionEstimatedBandwidth: 1_000_000, networkCondition: .good, networkConditionReason: .none),
            networkDegradationSource: source)
        // No stream in the callback: the call's printer fills it in from the subscriber it follows.
        return [StatsCallback(time: time, endpoint: "subscriber", peerConnection: PeerConnectionID(connection), stream: nil, event: .subscriberVideoNetworkStatsUpdated(video)),
                StatsCallback(time: time, endpoint: "subscriber", peerConnection: PeerConnectionID(connection), stream: nil, event: .subscriberMediaLinkStatsUpdated(link))]
    }

    private func scrape(_ port: UInt16) async throws -> [String: Double] {
        let text: String = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/metrics")!, timeoutInterval: 5)) { data, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: String(decoding: data ?? Data(), as: UTF8.self)) }
            }.resume()
        }
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    // MARK: /metrics over a call

    @Test func gaugesMoveEveryIntervalCountersOnlyGrowAndAReconnectedSubscriberKeepsItsSeries() async throws {
        let metrics = try CallLiveMetrics(port: 0, exporters: [])
        defer { _ = metrics }
        let printer = CallEventPrinter(format: .ndjson, metrics: metrics, output: { _ in })
        let bytes = #"callscope_subscriber_video_received_bytes_total{peer="subscriber",stream="cam"}"#
        let bitrate = #"callscope_subscriber_video_payload_bits_per_second{peer="subscriber",stream="cam"}"#
        let good = #"callscope_network_condition_seconds_total{condition="good",link="downlink",peer="subscriber",stream="cam"}"#
        let warning = #"callscope_network_condition_seconds_total{condition="warning",link="downlink",peer="subscriber",stream="cam"}"#
        let isWarning = #"callscope_network_condition{condition="warning",link="downlink",peer="subscriber",stream="cam"}"#
        let intervals = [
            interval(at: 1_000, bytes: 1_000, packets: 10, bitrate: 8_000, condition: .good),
            interval(at: 2_000, bytes: 3_000, packets: 30, bitrate: 16_000, condition: .good),
            // The subscriber reconnected: a new peer connection, the same stream, its totals going on.
            interval(at: 3_000, bytes: 3_500, packets: 35, bitrate: 4_000, condition: .warning, source: .local, connection: "sub-2"),
        ]
        // After each interval: (bytes total, payload bit/s, s good, s warning, warning state).
        let expected: [(Double, Double, Double, Double, Double)] = [
            (1_000, 8_000, 0, 0, 0),   // first link callback: no interval counted yet
            (3_000, 16_000, 1, 0, 0),  // 1 s good
            (3_500, 4_000, 1, 1, 1),   // 1 s warning, reported at its end
        ]
        let port = try #require(metrics.port)
        for (callbacks, want) in zip(intervals, expected) {
            for callback in callbacks { printer.stats(callback, stream: "cam") }
            let samples = try await scrape(port)
            #expect(samples[bytes] == want.0)
            #expect(samples[bitrate] == want.1)
            #expect(samples[good] == want.2)
            #expect(samples[warning] == want.3)
            #expect(samples[isWarning] == want.4)
            // One series per stream, before and after the reconnection (no connection label).
            #expect(samples.keys.filter { $0.hasPrefix("callscope_subscriber_video_received_bytes_total") } == [bytes])
        }
        try await metrics.finish()
    }

    // MARK: A lost exporter

    /// An exporter that refuses the exports whose number (from 1) is in `failing`.
    private struct ScriptedExporter: CallMetricsExporter {
        let failing: Set<Int>
        let count = Locked(0)

        func export(_ snapshot: CallMetricsSnapshot) async throws {
            let number = count.withLock { $0 += 1; return $0 }
            if failing.contains(number) {
                throw CallMetricsExportError(.unreachable, url: "http://127.0.0.1:9/metrics", detail: "Could not connect to the server.")
            }
        }
    }

    @Test func aLostExporterIsReportedOnceAndItsReturnOnce() async throws {
        let notices = Locked<[String]>([])
        let exporter = ScriptedExporter(failing: [2, 3, 4, 5])
        let metrics = try CallLiveMetrics(port: nil, exporters: [("--push", exporter)], notify: { text in notices.withLock { $0.append(text) } })
        await metrics.exportNow()
        #expect(exporter.count.withLock { $0 } == 0, "nothing is sent before the first callback")
        metrics.ingest(interval(at: 1_000, bytes: 1_000, packets: 10, bitrate: 8_000, condition: .good)[0])
        for _ in 1...7 { await metrics.exportNow() }
        #expect(exporter.count.withLock { $0 } == 7)
        #expect(notices.withLock { $0 } == [
            "--push: cannot reach http://127.0.0.1:9/metrics: Could not connect to the server. (is the receiver running?); the call goes on, retrying every interval (said once)",
            "--push: exports get through again (4 intervals lost)",
        ])
        try await metrics.finish()
    }

    @Test func aFinalExportThatFailsFailsTheCommand() async throws {
        let metrics = try CallLiveMetrics(port: nil, exporters: [("--otlp", ScriptedExporter(failing: [1]))], notify: { _ in })
        metrics.ingest(interval(at: 1_000, bytes: 1_000, packets: 10, bitrate: 8_000, condition: .good)[0])
        await #expect(throws: CallLiveExportFailure.self) { try await metrics.finish() }
    }

    @Test(arguments: [
        // (exports: true = got through, the notices expected after each)
        ([true, true], [nil, nil]),
        ([false, false, false], ["lost", nil, nil]),
        ([false, true, false, true], ["lost", "recovered 1", "lost", "recovered 1"]),
        ([true, false, false, true, true], [nil, "lost", nil, "recovered 2", nil]),
    ] as [([Bool], [String?])])
    func exporterHealthSpeaksOnlyOnChanges(outcomes: [Bool], notices: [String?]) {
        var health = ExporterHealth()
        let said = outcomes.map { ok -> String? in
            switch ok ? health.succeeded() : health.failed(CallMetricsExportError(.rejected, url: "u", status: 500)) {
            case .lost?: "lost"
            case .recovered(let failures)?: "recovered \(failures)"
            case nil: nil
            }
        }
        #expect(said == notices)
    }

    // MARK: Options

    @Test(arguments: [
        (["--metrics-port", "70000"], "--metrics-port takes a TCP port, 0-65535 (0: any free port)"),
        (["--metrics-port", "9464", "--metrics-host", "localhost"], "--metrics-host takes an IPv4 address, e.g. 0.0.0.0"),
        (["--push", "ftp://gateway"], "--push takes an http(s) URL, e.g. http://127.0.0.1:9091"),
        (["--otlp", "collector:4318"], "--otlp takes an http(s) URL, e.g. http://127.0.0.1:4318"),
    ])
    func badValuesAreUsageErrors(arguments: [String], message: String) {
        #expect { try CallCommand(arguments: ["--janus", "http://127.0.0.1:8088/janus"] + arguments) } throws: { error in
            (error as? UsageError)?.message == message
        }
    }
}
