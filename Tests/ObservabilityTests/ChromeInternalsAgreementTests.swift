import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// On a real `webrtc-internals` dump, the engine's per-second bitrates agree with the series
/// Chrome computed itself (`[bytesSent_in_bits/s]`, `[headerBytesSent_in_bits/s]`).
@Suite struct ChromeInternalsAgreementTests {
    @Test func layerBitratesAgreeWithChromesOwnSeries() throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/webrtc-internals-publisher.json.gz")
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: url)))
        #expect(timeline.format == .webrtcInternals)
        var engine = CallStatsEngine()
        var compared = 0
        for sample in timeline.samples {
            for callback in engine.ingest(sample) {
                guard case .publisherVideoNetworkStatsUpdated(let stats) = callback.event, let video = stats.first else { continue }
                for layer in video.videoLayers where layer.bitrate > 0 {
                    let entry = try #require(sample.report.entries.first { $0.type == .outboundRTP && $0.rid == layer.rid })
                    guard let chrome = entry.number("[bytesSent_in_bits/s]") else { continue }
                    let chromeHeaders = entry.number("[headerBytesSent_in_bits/s]") ?? 0
                    // Chrome divides by its own poll interval; both use the entries' timestamps.
                    #expect(abs(layer.bitrate - chrome) <= max(1, chrome * 0.001), "\(layer.rid ?? "?") at \(sample.time): \(layer.bitrate) vs Chrome \(chrome)")
                    #expect(abs(layer.totalBitrate - (chrome + chromeHeaders)) <= max(1, (chrome + chromeHeaders) * 0.001))
                    compared += 1
                }
            }
        }
        #expect(compared >= 30, "the dump has Chrome's own bitrate series for the layers")
    }

    @Test func subscriberBitratesAgreeWithChromesOwnSeries() throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/webrtc-internals-subscriber.json.gz")
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: url)))
        var engine = CallStatsEngine()
        var compared = 0
        for sample in timeline.samples {
            for callback in engine.ingest(sample) {
                guard case .subscriberVideoNetworkStatsUpdated(let video) = callback.event, video.bitrate > 0 else { continue }
                let entry = try #require(sample.report.entries.first { $0.type == .inboundRTP && $0.kind == "video" })
                guard let chrome = entry.number("[bytesReceived_in_bits/s]") else { continue }
                let chromeHeaders = entry.number("[headerBytesReceived_in_bits/s]") ?? 0
                #expect(abs(video.bitrate - chrome) <= max(1, chrome * 0.001), "at \(sample.time): \(video.bitrate) vs Chrome \(chrome)")
                #expect(abs(video.totalBitrate - (chrome + chromeHeaders)) <= max(1, (chrome + chromeHeaders) * 0.001))
                compared += 1
            }
        }
        #expect(compared >= 20, "the dump has Chrome's own received-bitrate series")
    }

    /// Frame rates against Chrome's own `[framesEncoded/s]` / `[framesDecoded/s]`: the engine
    /// reports the browser's `framesPerSecond` (frames in the last second, an integer), Chrome's
    /// series are Δframes/Δt between its polls, so they differ by the frames that fell on either
    /// side of a poll: within 2.5 frames/s each second, and within 0.5 on average.
    @Test(arguments: [("publisher", "[framesEncoded/s]"), ("subscriber", "[framesDecoded/s]")])
    func frameRatesAgreeWithChromesOwnSeries(side: String, series: String) throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/webrtc-internals-\(side).json.gz")
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: url)))
        var engine = CallStatsEngine()
        var differences: [Double] = []
        for sample in timeline.samples {
            for callback in engine.ingest(sample) {
                switch callback.event {
                case .publisherVideoNetworkStatsUpdated(let links):
                    for layer in links.first?.videoLayers ?? [] {
                        guard let entry = sample.report.entries.first(where: { $0.type == .outboundRTP && $0.rid == layer.rid }),
                              let chrome = entry.number(series) else { continue }
                        differences.append(layer.encodedFrameRate - chrome)
                    }
                case .subscriberVideoNetworkStatsUpdated(let video):
                    guard let entry = sample.report.entries.first(where: { $0.type == .inboundRTP && $0.kind == "video" }),
                          let chrome = entry.number(series) else { continue }
                    differences.append(video.decodedFrameRate - chrome)
                default: continue
                }
            }
        }
        #expect(differences.count >= 20, "the dump has Chrome's \(series) series")
        #expect(differences.allSatisfy { abs($0) <= 2.5 }, "largest difference \(differences.map(abs).max() ?? 0)")
        #expect(abs(differences.reduce(0, +)) / Double(max(differences.count, 1)) <= 0.5)
    }
}
