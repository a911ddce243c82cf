import CallScopeReplay
import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// Out-of-range input is dropped and counted, never emitted (issue: a frame rate of −30 or 10⁹,
/// an 8 Gb/s bitrate from a counter jump, a negative estimate, an infinite time as "t":null).
@Suite struct PhysicalBoundsTests {
    typealias S = Synthetic

    private func inbound(at time: Double, bytes: Double, fps: Double, extra: [String: Any] = [:]) -> StatsEntry {
        var fields: [String: Any] = ["kind": "video", "bytesReceived": bytes, "packetsReceived": 100 * time / 1000, "packetsLost": 0, "framesPerSecond": fps]
        fields.merge(extra) { $1 }
        return S.entry("IT1", .inboundRTP, at: time, fields)
    }

    @Test func absurdValuesAreDroppedAndCounted() {
        var engine = CallStatsEngine()
        var videos: [SubscriberVideoNetworkStats] = []
        var estimates: [Double] = []
        // 1 s apart: 10 kB, then a jump of 1 GB (8 Gb/s), then −30 fps, then 10⁹ fps.
        let steps: [(bytes: Double, fps: Double)] = [(10_000, 30), (1_000_010_000, 30), (1_000_020_000, -30), (1_000_030_000, 1e9)]
        for (index, step) in steps.enumerated() {
            let time = Double(index + 1) * 1000
            for callback in engine.ingest(S.sample("subscriber", at: time, [
                inbound(at: time, bytes: step.bytes, fps: step.fps),
                S.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
                S.entry("CP", .candidatePair, at: time, ["availableIncomingBitrate": -5_000, "currentRoundTripTime": 1e9]),
            ])) {
                if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { videos.append(video) }
                if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { estimates.append(link.transport.connectionEstimatedBandwidth) }
            }
        }
        #expect(videos.map(\.decodedFrameRate) == [30, 30, 0, 0])
        #expect(videos.map(\.bitrate) == [0, 0, 80_000, 80_000], "the first sample has no rate; the 8 Gb/s jump is dropped")
        #expect(estimates.allSatisfy { $0 >= 0 })
        let dropped = engine.droppedValues.counts
        #expect(dropped[.frameRate] == 2)
        #expect(dropped[.bitrate] == 1)
        #expect(dropped[.estimate] == 4, "the negative availableIncomingBitrate of every sample")
        #expect(dropped[.delay] == 4, "an RTT of 10⁹ s in every sample")
    }

    @Test func aSampleWithoutAUsableTimeIsDroppedWhole() {
        var engine = CallStatsEngine()
        for time in [Double.infinity, -.infinity, .nan, -1] {
            #expect(engine.ingest(StatsSample(time: time, peer: "subscriber", peerConnection: "pc", report: StatsReport(entries: [inbound(at: 1000, bytes: 1, fps: 1)]))).isEmpty)
        }
        #expect(engine.droppedValues.counts[.sampleTime] == 4)
    }

    // MARK: Every real capture

    static var captures: [URL] {
        let root = Synthetic.repositoryRoot()
        var files = ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Recordings").path)) ?? [])
            .filter { $0.hasSuffix(".ndjson.gz") || $0.hasSuffix(".json.gz") }
            .map { root.appendingPathComponent("Recordings/\($0)") }
        let shared = root.deletingLastPathComponent().appendingPathComponent("shared/data/public-stats")
        for folder in ["jitsi-rtcstats", "snapshots"] {
            let directory = shared.appendingPathComponent(folder)
            files += ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted().map { directory.appendingPathComponent($0) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every value a replay of every real capture emits is within its bounds (our recordings,
    /// and the third-party captures in shared/ where they are beside the checkout, as in CI).
    @Test(arguments: captures)
    func everyEmittedValueOfARealCaptureIsWithinItsBounds(file: URL) throws {
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: file)))
        var checked = 0
        func check(_ value: Double, _ bounds: ClosedRange<Double>, _ what: String) {
            checked += 1
            #expect(value.isFinite && bounds.contains(value), "\(file.lastPathComponent): \(what) = \(value)")
        }
        for callback in ReplayDriver.replay(timeline) {
            check(callback.time, PhysicalBounds.time, "t")
            switch callback.event {
            case .publisherVideoNetworkStatsUpdated(let links):
                for layer in links.flatMap(\.videoLayers) {
                    check(layer.encodedFrameRate, PhysicalBounds.frameRate, "encodedFrameRate")
                    check(layer.bitrate, PhysicalBounds.bitrate, "layer bitrate")
                    check(layer.totalBitrate, PhysicalBounds.bitrate, "layer totalBitrate")
                }
            case .publisherMediaLinkStatsUpdated(let links):
                for link in links { check(link.transport.connectionEstimatedBandwidth, PhysicalBounds.estimate, "uplink estimate") }
            case .subscriberVideoNetworkStatsUpdated(let video):
                check(video.decodedFrameRate, PhysicalBounds.frameRate, "decodedFrameRate")
                check(video.bitrate, PhysicalBounds.bitrate, "bitrate")
                check(video.totalBitrate, PhysicalBounds.bitrate, "totalBitrate")
            case .subscriberMediaLinkStatsUpdated(let link):
                check(link.transport.connectionEstimatedBandwidth, PhysicalBounds.estimate, "downlink estimate")
            default: break
            }
        }
        // A capture with RTP entries replays to stats; one without (a snapshot of codecs and
        // candidates only) to nothing.
        let hasRTP = timeline.samples.contains { $0.report.entries.contains { $0.knownType == .outboundRTP || $0.knownType == .inboundRTP } }
        #expect((checked > 0) == hasRTP, "\(file.lastPathComponent): RTP entries \(hasRTP), values checked \(checked)")
    }
}
