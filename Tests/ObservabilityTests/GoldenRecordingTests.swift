import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// The engine on the shipped real recording (Chromium → Janus → Chromium, 3-layer simulcast),
/// against values computed independently from the raw reports by
/// `Scripts/golden_expectations.py` (Python's gzip + json, straight from the W3C definitions).
@Suite struct GoldenRecordingTests {
    let recording = Synthetic.repositoryRoot().appendingPathComponent("Recordings/baseline-simulcast.ndjson.gz")
    let expectations = Synthetic.repositoryRoot().appendingPathComponent("Recordings/baseline-simulcast.expected.json")

    private func close(_ actual: Double, _ expected: Double) -> Bool {
        abs(actual - expected) <= max(1e-6, abs(expected) * 1e-9)
    }

    @Test func everyPerSecondValueMatchesTheIndependentComputation() throws {
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: recording)))
        #expect(timeline.problems.isEmpty)
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: expectations)) as! [String: Any]
        let records = expected["samples"] as! [[String: Any]]
        #expect(records.count == timeline.samples.count, "expectations are stale: regenerate with Scripts/golden_expectations.py")

        var engine = CallStatsEngine()
        var publisherByTime: [Double: PublisherVideoNetworkStats] = [:]
        var subscriberByTime: [Double: SubscriberVideoNetworkStats] = [:]
        for sample in timeline.samples {
            for callback in engine.ingest(sample) {
                switch callback.event {
                case .publisherVideoNetworkStatsUpdated(let stats): publisherByTime[callback.time] = stats.first
                case .subscriberVideoNetworkStatsUpdated(let stats): subscriberByTime[callback.time] = stats
                default: break
                }
            }
        }

        var layerChecks = 0
        var subscriberRateChecks = 0
        for record in records {
            let time = record["t"] as! Double
            if record["peer"] as? String == "publisher" {
                let stats = try #require(publisherByTime[time], "publisher stats at \(time)")
                #expect(Double(stats.videoBytesSent) == record["videoBytesSent"] as! Double)
                #expect(Double(stats.videoPacketsSent) == record["videoPacketsSent"] as! Double)
                #expect(Double(stats.videoPacketsLost) == record["videoPacketsLost"] as! Double)
                let layers = record["layers"] as? [String: [String: Double]] ?? [:]
                if !layers.isEmpty {
                    // Low to high, as the independent side's frame sizes order them.
                    let expectedOrder = layers.sorted { $0.value["height"]! < $1.value["height"]! }.map(\.key)
                    #expect(stats.videoLayers.compactMap(\.rid) == expectedOrder, "layers at \(time)")
                }
                for layer in stats.videoLayers {
                    guard let rid = layer.rid, let reference = layers[rid] else { continue }
                    #expect(close(layer.bitrate, reference["bitrate"]!), "\(rid) bitrate at \(time): \(layer.bitrate) vs \(reference["bitrate"]!)")
                    #expect(close(layer.totalBitrate, reference["totalBitrate"]!), "\(rid) totalBitrate at \(time)")
                    #expect(layer.width == Int(reference["width"]!) && layer.height == Int(reference["height"]!))
                    layerChecks += 1
                }
            } else {
                let stats = try #require(subscriberByTime[time], "subscriber stats at \(time)")
                #expect(Double(stats.videoBytesReceived) == record["videoBytesReceived"] as! Double)
                #expect(Double(stats.videoPacketsReceived) == record["videoPacketsReceived"] as! Double)
                #expect(stats.width == record["width"] as! Int && stats.height == record["height"] as! Int)
                #expect(Double(stats.freezeCount) == record["freezeCount"] as! Double)
                #expect(close(stats.totalFreezesDuration, record["totalFreezesDuration"] as! Double))
                #expect(Double(stats.pauseCount) == record["pauseCount"] as! Double)
                if let bitrate = record["bitrate"] as? Double {
                    #expect(close(stats.bitrate, bitrate), "subscriber bitrate at \(time)")
                    #expect(close(stats.totalBitrate, record["totalBitrate"] as! Double))
                    subscriberRateChecks += 1
                }
            }
        }
        // The recording really exercises what this test claims to check.
        #expect(layerChecks >= 3 * 30, "three layers over at least 30 s")
        #expect(subscriberRateChecks >= 30)
    }
}
