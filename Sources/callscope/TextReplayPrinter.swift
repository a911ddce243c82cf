import Foundation
import Observability
import RTCStats

/// The human form of a replay: one block per second, events marked with `▶`, then a summary per
/// stream and a timeline of degradations.
struct TextReplayPrinter {
    let file: String
    let timeline: StatsTimeline
    var origin: Double?
    private var summaries: [String: StreamSummary] = [:]
    private var summaryOrder: [String] = []
    private var degradations = DegradationTimeline()
    /// Link reports printed, and those whose condition was known: "no degradation" is only
    /// said of links that were judged.
    private var linkReports = 0
    private var judgedLinkReports = 0

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

    /// A subscriber stream's label: its id, else (a connection's only stream) its publisher
    /// when the call has several; empty for publisher callbacks and two-party calls.
    static func streamLabel(_ callback: StatsCallback) -> String {
        guard let stream = callback.stream else { return "" }
        return stream == .sole ? "" : stream.rawValue
    }

    mutating func print(_ callbacks: [StatsCallback]) {
        for callback in callbacks {
            let start = origin ?? callback.time
            origin = start
            let seconds = (callback.time - start) / 1000
            let clock = Self.clock(seconds)
            let stream = Self.streamLabel(callback)
            let who = "\(callback.endpoint)/\(callback.peerConnection)" + (stream.isEmpty ? "" : " [\(stream)]")
            switch callback.event {
            case .publisherVideoNetworkStatsUpdated(let links):
                for stats in links {
                    let layers = stats.videoLayers.map { layer in
                        "\(layer.rid.map { "\($0) " } ?? "")\(layer.width)x\(layer.height)@\(Self.rate(layer.encodedFrameRate)) \(Self.bitrate(layer.bitrate)) (\(Self.bitrate(layer.totalBitrate)) w/ RTP)\(layer.qualityLimitationReason == .none ? "" : " limited:\(layer.qualityLimitationReason.rawValue)")"
                    }.joined(separator: " | ")
                    let link = stats.connectionId.isEmpty ? "" : " → \(stats.connectionId)"
                    let codec = stats.videoLayers.first?.codec ?? "?"
                    Swift.print("\(clock) \(who) video\(link) \(codec): \(layers.isEmpty ? "no layer sending" : layers); sent \(stats.videoBytesSent) B, lost \(stats.videoPacketsLost)")
                    record(key: "\(callback.endpoint.rawValue) sending video\(link)", bitrate: stats.videoLayers.reduce(0) { $0 + $1.bitrate },
                           last: "sent \(stats.videoBytesSent) B in \(stats.videoPacketsSent) packets, \(stats.videoPacketsLost) lost, \(stats.videoLayers.count) layer(s) at the end")
                }
            case .publisherAudioNetworkStatsUpdated(let links):
                for stats in links {
                    Swift.print("\(clock) \(who) audio: sent \(stats.audioBytesSent) B / \(stats.audioPacketsSent) packets, lost \(stats.audioPacketsLost)")
                }
            case .publisherMediaLinkStatsUpdated(let links):
                for stats in links {
                    Swift.print("\(clock) \(who) uplink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), \(Self.condition(stats.transport))")
                    degradations.recordPublisher(peer: callback.endpoint.rawValue, second: seconds, transport: stats.transport)
                    countLink(stats.transport.networkCondition)
                }
            case .subscriberVideoNetworkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) video \(stats.codec ?? "?"): \(stats.width)x\(stats.height)@\(Self.rate(stats.decodedFrameRate)) \(Self.bitrate(stats.bitrate)) (\(Self.bitrate(stats.totalBitrate)) w/ RTP); received \(stats.videoBytesReceived) B, lost \(stats.videoPacketsLost), freezes \(stats.freezeCount) (\(Self.milliseconds(stats.totalFreezesDuration))), pauses \(stats.pauseCount) (\(Self.milliseconds(stats.totalPausesDuration)))")
                record(key: "\(callback.endpoint) receiving video\(stream.isEmpty ? "" : " [\(stream)]")", bitrate: stats.bitrate,
                       last: "received \(stats.videoBytesReceived) B, \(stats.videoPacketsLost) lost, \(stats.freezeCount) freezes (\(Self.milliseconds(stats.totalFreezesDuration))), \(stats.pauseCount) pauses (\(Self.milliseconds(stats.totalPausesDuration))), last \(stats.width)x\(stats.height) \(stats.codec ?? "")")
            case .subscriberAudioNetworkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) audio: received \(stats.audioBytesReceived) B / \(stats.audioPacketsReceived) packets, lost \(stats.audioPacketsLost)")
            case .subscriberMediaLinkStatsUpdated(let stats):
                Swift.print("\(clock) \(who) downlink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), \(Self.condition(stats.transport)); remote uplink \(Self.condition(stats.remotePublisherTransport)); degradation source: \(stats.networkDegradationSource.rawValue)")
                degradations.recordSubscriber(peer: callback.endpoint.rawValue, stream: stream, second: seconds, stats: stats)
                countLink(stats.transport.networkCondition)
            case .publisherNetworkConditionChanged(let stats, let reason):
                Swift.print("\(clock) ▶ \(who) networkConditionChanged: uplink \(stats.transport.networkCondition.rawValue) (\(reason.rawValue))")
            case .publisherVideoQualityChanged(let stats, let reason):
                Swift.print("\(clock) ▶ \(who) videoQualityChanged: \(reason.rawValue) → \(stats.videoLayers.map { "\($0.width)x\($0.height)" }.joined(separator: ", "))")
            case .subscriberNetworkConditionChanged(let stats, let reason):
                Swift.print("\(clock) ▶ \(who) networkConditionChanged: downlink \(stats.transport.networkCondition.rawValue), remote uplink \(stats.remotePublisherTransport.networkCondition.rawValue), source \(stats.networkDegradationSource.rawValue) (\(reason.rawValue))")
            case .subscriberVideoQualityChanged(let stats, let reason):
                Swift.print("\(clock) ▶ \(who) videoQualityChanged: \(reason.rawValue) → \(stats.width)x\(stats.height) \(stats.codec ?? "")")
            case .participantConnectionQualityChanged(let quality):
                Swift.print("\(clock) ▶ \(who) connectionQualityChanged: \(quality.rawValue)")
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
        Swift.print("\nTimeline")
        let lines = degradations.lines()
        if lines.isEmpty {
            if linkReports == 0 {
                Swift.print("  nothing to judge: no link was reported (the capture has no RTP stats the engine can use)")
            } else if judgedLinkReports == 0 {
                Swift.print("  no condition could be computed: every link stayed unknown (\(linkReports) link reports, too few samples with media)")
            } else {
                Swift.print("  no degradation: every link that could be judged stayed fair or better (\(judgedLinkReports) of \(linkReports) link reports judged)")
            }
        }
        for line in lines { Swift.print("  " + line) }
    }

    private mutating func countLink(_ condition: NetworkCondition) {
        linkReports += 1
        if condition != .unknown { judgedLinkReports += 1 }
    }

    static func condition(_ transport: TransportStats) -> String {
        let reason = transport.networkConditionReason
        return transport.networkCondition.rawValue + (reason == .none || reason == .unknown ? "" : " (\(reason.rawValue))")
    }

    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e9 else { return "--:--" }
        let whole = max(0, Int(seconds.rounded()))
        return String(format: "%02d:%02d", whole / 60, whole % 60)
    }

    static func bitrate(_ bps: Double) -> String {
        if bps >= 1_000_000 { return String(format: "%.2f Mbps", bps / 1_000_000) }
        return String(format: "%.0f kbps", bps / 1000)
    }

    static func rate(_ value: Double) -> String { String(format: "%.0f", value) }

    static func milliseconds(_ value: Double) -> String { String(format: "%.0f ms", value) }
}
