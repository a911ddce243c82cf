import Foundation
import Observability
import RTCStats

/// The human form of a replay: one block per second, then a summary per stream.
struct TextReplayPrinter {
    let file: String
    let timeline: StatsTimeline
    private var origin: Double?
    private var lastSecondPrinted: Int?
    private var summaries: [String: StreamSummary] = [:]
    private var summaryOrder: [String] = []

    init(file: String, timeline: StatsTimeline) {
        self.file = file
        self.timeline = timeline
    }

    private struct StreamSummary {
        var title: String
        var seconds = 0
        var bitrateSum: Double = 0
        var bitrateMax: Double = 0
        var lastLine = ""
    }

    func printHeader() {
        let samples = timeline.samples
        let peers = Set(samples.map(\.peer)).sorted()
        let duration = ((samples.last?.time ?? 0) - (samples.first?.time ?? 0)) / 1000
        var header = "\(file): \(timeline.format.rawValue), \(samples.count) samples, \(String(format: "%.0f", duration)) s, peers: \(peers.joined(separator: ", "))"
        if let scenario = timeline.metadata.first(where: { $0.name == "scenario" })?.value.string { header += ", scenario \(scenario)" }
        if let browser = timeline.metadata.first(where: { $0.name == "browser" })?.value.string { header += "\n  browser: \(browser)" }
        Swift.print(header)
    }

    mutating func print(_ callbacks: [StatsCallback]) {
        for callback in callbacks {
            let start = origin ?? callback.time
            origin = start
            let clock = Self.clock(callback.time - start)
            let who = callback.stream.isEmpty ? "\(callback.peer)/\(callback.peerConnection)" : "\(callback.peer)/\(callback.peerConnection) stream \(callback.stream)"
            switch callback.event {
            case .publisherVideoNetworkStatsUpdated(let links):
                for stats in links {
                    let layers = stats.videoLayers.map { layer in
                        "\(layer.rid.map { "\($0) " } ?? "")\(layer.width)x\(layer.height)@\(Self.rate(layer.encodedFrameRate)) \(Self.bitrate(layer.bitrate))/\(Self.bitrate(layer.totalBitrate)) \(layer.codec ?? "?") \(layer.scalabilityMode ?? "") limit=\(layer.qualityLimitationReason.rawValue)"
                    }.joined(separator: " | ")
                    let link = stats.connectionId.isEmpty ? "" : " to \(stats.connectionId)"
                    Swift.print("\(clock) \(who) publisher video\(link): sent \(stats.videoBytesSent) B / \(stats.videoPacketsSent) pkts, lost \(stats.videoPacketsLost), \(Self.rate(stats.videoFrameRate)) fps; layers: \(layers.isEmpty ? "none sending" : layers)")
                    record(key: "\(callback.peer) publisher video\(link)", bitrate: stats.videoLayers.reduce(0) { $0 + $1.bitrate },
                           last: "sent \(stats.videoBytesSent) B, \(stats.videoPacketsSent) packets, \(stats.videoPacketsLost) lost, \(stats.videoLayers.count) layers at the end")
                }
            case .publisherAudioNetworkStatsUpdated(let links):
                for stats in links {
                    Swift.print("\(clock) \(who) publisher audio: sent \(stats.audioBytesSent) B / \(stats.audioPacketsSent) pkts, lost \(stats.audioPacketsLost)")
                }
            case .publisherMediaLinkStatsUpdated(let links):
                for stats in links {
                    Swift.print("\(clock) \(who) uplink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), condition \(stats.transport.networkCondition.rawValue) (\(stats.transport.networkConditionReason.rawValue))")
                }
            case .subscriberVideoNetworkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) subscriber video: \(stats.width)x\(stats.height)@\(Self.rate(stats.decodedFrameRate)) \(Self.bitrate(stats.bitrate))/\(Self.bitrate(stats.totalBitrate)) \(stats.codec ?? "?"), received \(stats.videoBytesReceived) B / \(stats.videoPacketsReceived) pkts, lost \(stats.videoPacketsLost), freezes \(stats.freezeCount) (\(Int(stats.totalFreezesDuration)) ms), pauses \(stats.pauseCount) (\(Int(stats.totalPausesDuration)) ms)")
                record(key: "\(callback.peer) subscriber video \(callback.stream.isEmpty ? "" : callback.stream)", bitrate: stats.bitrate,
                       last: "received \(stats.videoBytesReceived) B, \(stats.videoPacketsLost) lost, \(stats.freezeCount) freezes (\(Int(stats.totalFreezesDuration)) ms), \(stats.pauseCount) pauses (\(Int(stats.totalPausesDuration)) ms), last \(stats.width)x\(stats.height) \(stats.codec ?? "")")
            case .subscriberAudioNetworkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) subscriber audio: received \(stats.audioBytesReceived) B / \(stats.audioPacketsReceived) pkts, lost \(stats.audioPacketsLost)")
            case .subscriberMediaLinkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) downlink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), condition \(stats.transport.networkCondition.rawValue), remote uplink \(stats.remotePublisherTransport.networkCondition.rawValue), degradation source \(stats.networkDegradationSource.rawValue)")
            }
        }
    }

    private mutating func record(key: String, bitrate: Double, last: String) {
        var summary = summaries[key] ?? StreamSummary(title: key)
        if summaries[key] == nil { summaryOrder.append(key) }
        summary.seconds += 1
        summary.bitrateSum += bitrate
        summary.bitrateMax = max(summary.bitrateMax, bitrate)
        summary.lastLine = last
        summaries[key] = summary
    }

    func printSummary() {
        Swift.print("\nSummary")
        for key in summaryOrder {
            guard let summary = summaries[key] else { continue }
            let mean = summary.seconds > 0 ? summary.bitrateSum / Double(summary.seconds) : 0
            Swift.print("  \(summary.title): \(summary.seconds) samples, mean \(Self.bitrate(mean)), peak \(Self.bitrate(summary.bitrateMax)); \(summary.lastLine)")
        }
    }

    static func clock(_ milliseconds: Double) -> String {
        let seconds = max(0, Int((milliseconds / 1000).rounded()))
        return String(format: "%02d:%02d", seconds / 60, seconds % 60)
    }

    static func bitrate(_ bps: Double) -> String {
        if bps >= 1_000_000 { return String(format: "%.2f Mbps", bps / 1_000_000) }
        return String(format: "%.0f kbps", bps / 1000)
    }

    static func rate(_ value: Double) -> String { String(format: "%.0f", value) }
}
