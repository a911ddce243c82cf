import Foundation
import Observability

/// The human form of stats callbacks, one writer for `replay` and `call` (`--format text`):
/// each callback's values as a line (layers, sizes, frame rates, bitrates, loss, condition and
/// reason, degradation source; events marked with `▶`), then a summary per stream and a
/// timeline of degradations. It returns lines; the caller prints them.
struct CallbackTextPrinter: Sendable {
    /// How a line's time is shown.
    enum ClockStyle: Sendable {
        /// `mm:ss` since ``origin`` (a replay).
        case sinceOrigin
        /// `HH:MM:SS.mmm` of the callback's unix time, as `call`'s lifecycle lines.
        case wallClock
    }

    let clockStyle: ClockStyle
    /// Unix ms of second zero: the timeline's runs count from it. The first callback's time
    /// unless set before.
    var origin: Double?
    private var summaries: [String: StreamSummary] = [:]
    private var summaryOrder: [String] = []
    private var degradations = DegradationTimeline()
    /// Link reports seen, and those whose condition was known: "no degradation" is only said
    /// of links that were judged.
    private var linkReports = 0
    private var judgedLinkReports = 0

    init(clockStyle: ClockStyle = .sinceOrigin, origin: Double? = nil) {
        self.clockStyle = clockStyle
        self.origin = origin
    }

    private struct StreamSummary: Sendable {
        var title: String
        var seconds = 0
        var bitrateSum: Double = 0
        var bitrateMax: Double = 0
        var lastLine = ""
    }

    /// A subscriber stream's label: its id, else (a connection's only stream) its publisher
    /// when the call has several; empty for publisher callbacks and two-party calls.
    static func streamLabel(_ callback: StatsCallback) -> String {
        guard let stream = callback.stream else { return "" }
        return stream == .sole ? "" : stream.rawValue
    }

    /// The lines of one callback (one per link for the publisher's arrays), and what it adds
    /// to the summary and the timeline.
    mutating func lines(for callback: StatsCallback) -> [String] {
        let start = origin ?? callback.time
        origin = start
        let seconds = (callback.time - start) / 1000
        let clock = clockStyle == .wallClock ? CallEventPrinter.clock(callback.time) : Self.clock(seconds)
        let stream = Self.streamLabel(callback)
        let who = "\(callback.endpoint)/\(callback.peerConnection)" + (stream.isEmpty ? "" : " [\(stream)]")
        var lines: [String] = []
        switch callback.event {
        case .publisherVideoNetworkStatsUpdated(let links):
            for stats in links {
                let layers = stats.videoLayers.map { layer in
                    "\(layer.rid.map { "\($0) " } ?? "")\(layer.width)x\(layer.height)@\(Self.rate(layer.encodedFrameRate)) \(Self.bitrate(layer.bitrate)) (\(Self.bitrate(layer.totalBitrate)) w/ RTP)\(layer.qualityLimitationReason == .none ? "" : " limited:\(layer.qualityLimitationReason.rawValue)")"
                }.joined(separator: " | ")
                let link = stats.connectionId.isEmpty ? "" : " → \(stats.connectionId)"
                let codec = stats.videoLayers.first?.codec ?? "?"
                lines.append("\(clock) \(who) video\(link) \(codec): \(layers.isEmpty ? "no layer sending" : layers); sent \(stats.videoBytesSent) B, lost \(stats.videoPacketsLost)")
                record(key: "\(callback.endpoint.rawValue) sending video\(link)", bitrate: stats.videoLayers.reduce(0) { $0 + $1.bitrate },
                       last: "sent \(stats.videoBytesSent) B in \(stats.videoPacketsSent) packets, \(stats.videoPacketsLost) lost, \(stats.videoLayers.count) layer(s) at the end")
            }
        case .publisherAudioNetworkStatsUpdated(let links):
            for stats in links {
                lines.append("\(clock) \(who) audio: sent \(stats.audioBytesSent) B / \(stats.audioPacketsSent) packets, lost \(stats.audioPacketsLost)")
            }
        case .publisherMediaLinkStatsUpdated(let links):
            for stats in links {
                lines.append("\(clock) \(who) uplink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), \(Self.condition(stats.transport))")
                degradations.recordPublisher(peer: callback.endpoint.rawValue, second: seconds, transport: stats.transport)
                countLink(stats.transport.networkCondition)
            }
        case .subscriberVideoNetworkStatsUpdated(let stats):
            lines.append("\(clock) \(who) video \(stats.codec ?? "?"): \(stats.width)x\(stats.height)@\(Self.rate(stats.decodedFrameRate)) \(Self.bitrate(stats.bitrate)) (\(Self.bitrate(stats.totalBitrate)) w/ RTP); received \(stats.videoBytesReceived) B, lost \(stats.videoPacketsLost), freezes \(stats.freezeCount) (\(Self.milliseconds(stats.totalFreezesDuration))), pauses \(stats.pauseCount) (\(Self.milliseconds(stats.totalPausesDuration)))")
            record(key: "\(callback.endpoint) receiving video\(stream.isEmpty ? "" : " [\(stream)]")", bitrate: stats.bitrate,
                   last: "received \(stats.videoBytesReceived) B, \(stats.videoPacketsLost) lost, \(stats.freezeCount) freezes (\(Self.milliseconds(stats.totalFreezesDuration))), \(stats.pauseCount) pauses (\(Self.milliseconds(stats.totalPausesDuration))), last \(stats.width)x\(stats.height) \(stats.codec ?? "")")
        case .subscriberAudioNetworkStatsUpdated(let stats):
            lines.append("\(clock) \(who) audio: received \(stats.audioBytesReceived) B / \(stats.audioPacketsReceived) packets, lost \(stats.audioPacketsLost)")
        case .subscriberMediaLinkStatsUpdated(let stats):
            lines.append("\(clock) \(who) downlink: estimate \(Self.bitrate(stats.transport.connectionEstimatedBandwidth)), \(Self.condition(stats.transport)); remote uplink \(Self.condition(stats.remotePublisherTransport)); degradation source: \(stats.networkDegradationSource.rawValue)")
            degradations.recordSubscriber(peer: callback.endpoint.rawValue, stream: stream, second: seconds, stats: stats)
            countLink(stats.transport.networkCondition)
        case .publisherNetworkConditionChanged(let stats, let reason):
            lines.append("\(clock) ▶ \(who) networkConditionChanged: uplink \(stats.transport.networkCondition.rawValue) (\(reason.rawValue))")
        case .publisherVideoQualityChanged(let stats, let reason):
            lines.append("\(clock) ▶ \(who) videoQualityChanged: \(reason.rawValue) → \(stats.videoLayers.map { "\($0.width)x\($0.height)" }.joined(separator: ", "))")
        case .subscriberNetworkConditionChanged(let stats, let reason):
            lines.append("\(clock) ▶ \(who) networkConditionChanged: downlink \(stats.transport.networkCondition.rawValue), remote uplink \(stats.remotePublisherTransport.networkCondition.rawValue), source \(stats.networkDegradationSource.rawValue) (\(reason.rawValue))")
        case .subscriberVideoQualityChanged(let stats, let reason):
            lines.append("\(clock) ▶ \(who) videoQualityChanged: \(reason.rawValue) → \(stats.width)x\(stats.height) \(stats.codec ?? "")")
        case .participantConnectionQualityChanged(let quality):
            lines.append("\(clock) ▶ \(who) connectionQualityChanged: \(quality.rawValue)")
        }
        return lines
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

    /// The end: a blank line, `Summary` with one line per stream, a blank line, `Timeline`
    /// with the runs of degradation (or why there are none).
    func summaryLines() -> [String] {
        var lines = ["", "Summary"]
        for key in summaryOrder {
            guard let summary = summaries[key] else { continue }
            let mean = summary.seconds > 0 ? summary.bitrateSum / Double(summary.seconds) : 0
            lines.append("  \(summary.title): \(summary.seconds) samples, mean \(Self.bitrate(mean)), peak \(Self.bitrate(summary.bitrateMax)); \(summary.lastLine)")
        }
        lines += ["", "Timeline"]
        let runs = degradations.lines()
        if runs.isEmpty {
            if linkReports == 0 {
                lines.append("  nothing to judge: no link was reported (the capture has no RTP stats the engine can use)")
            } else if judgedLinkReports == 0 {
                lines.append("  no condition could be computed: every link stayed unknown (\(linkReports) link reports, too few samples with media)")
            } else {
                lines.append("  no degradation: every link that could be judged stayed fair or better (\(judgedLinkReports) of \(linkReports) link reports judged)")
            }
        }
        return lines + runs.map { "  " + $0 }
    }

    private mutating func countLink(_ condition: NetworkCondition) {
        linkReports += 1
        if condition != .unknown { judgedLinkReports += 1 }
    }

    // MARK: Formats

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
