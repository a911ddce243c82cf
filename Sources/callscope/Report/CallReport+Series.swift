import Foundation
import Observability
import RTCStats

/// Collects the report's series, bands and markers from callbacks (and RTT/jitter, which the
/// callbacks do not carry, from the raw samples).
struct SeriesCollector {
    let origin: Double
    private var series: [String: [String: ReportSeries]] = [:]      // chart id → key → series
    private var seriesOrder: [String: [String]] = [:]
    var loss: [String: ReportSeries] = [:]
    private var bands: [String: ReportBand] = [:]
    private var bandOrder: [String] = []
    var markers: [ReportMarker] = []
    /// The receive stream (``ReceiveStreamMedia/label(peer:stream:)``) each band, series and
    /// loss series belongs to, so a stream's whole output can be left out.
    private var bandStream: [String: String] = [:]
    private var seriesStream: [String: [String: String]] = [:]
    private var lossStream: [String: String] = [:]
    private var previousCounters: [String: (lost: Double, total: Double)] = [:]
    private var previousFreezes: [String: (count: Int, duration: Double, pauses: Int, pauseDuration: Double)] = [:]

    init(origin: Double) { self.origin = origin }

    static let chartTitles: [(id: String, title: String, unit: String)] = [
        ("bitrate", "Bitrate per layer and stream (solid: payload, dashed: with RTP overhead)", "bps"),
        ("bandwidth", "Estimated bandwidth", "bps"),
        ("loss", "Packet loss", "%"),
        ("delay", "Round-trip time and jitter", "ms"),
        ("fps", "Frame rate", "fps"),
        ("size", "Frame height", "px"),
    ]

    mutating func ingest(_ callback: StatsCallback) {
        let t = (callback.time - origin) / 1000
        let who = callback.endpoint.rawValue
        switch callback.event {
        case .publisherVideoNetworkStatsUpdated(let links):
            for stats in links {
                let link = stats.connectionId.isEmpty ? "" : " → \(stats.connectionId)"
                for (index, layer) in stats.videoLayers.enumerated() {
                    let name = "\(who)\(link) ↑ \(layer.rid ?? "layer \(index)")"
                    add("bitrate", name, t, layer.bitrate)
                    add("bitrate", name + " +RTP", t, layer.totalBitrate, dashed: true)
                    add("fps", name, t, layer.encodedFrameRate)
                    add("size", name, t, Double(layer.height))
                }
                lossPoint("\(who)\(link) uplink video", t, lost: Double(stats.videoPacketsLost), total: Double(stats.videoPacketsSent))
            }
        case .publisherMediaLinkStatsUpdated(let links):
            for stats in links {
                let link = stats.connectionId.isEmpty ? "" : " → \(stats.connectionId)"
                add("bandwidth", "\(who)\(link) uplink estimate", t, stats.transport.connectionEstimatedBandwidth)
                recordBand("\(who)\(link) uplink", kind: "condition", t, value: stats.transport.networkCondition.rawValue, detail: reason(stats.transport))
            }
        case .subscriberVideoNetworkStatsUpdated(let stats):
            let owner = ReceiveStreamMedia.label(peer: who, stream: callback.stream?.rawValue ?? "")
            let name = "\(owner) ↓"
            add("bitrate", name, t, stats.bitrate, stream: owner)
            add("bitrate", name + " +RTP", t, stats.totalBitrate, dashed: true, stream: owner)
            add("fps", name, t, stats.decodedFrameRate, stream: owner)
            add("size", name, t, Double(stats.height), stream: owner)
            if let sender = stats.senderStats { add("bandwidth", "\(name) publisher's uplink estimate (sender stats)", t, sender.connectionEstimatedBandwidth, stream: owner) }
            lossPoint("\(name) video", t, lost: Double(stats.videoPacketsLost), total: Double(stats.videoPacketsLost + stats.videoPacketsReceived), stream: owner)
            freezesAndPauses(name, t, stats)
        case .subscriberMediaLinkStatsUpdated(let stats):
            let name = ReceiveStreamMedia.label(peer: who, stream: callback.stream?.rawValue ?? "")
            add("bandwidth", "\(name) downlink estimate", t, stats.transport.connectionEstimatedBandwidth, stream: name)
            recordBand("\(name) downlink", kind: "condition", t, value: stats.transport.networkCondition.rawValue, detail: reason(stats.transport), stream: name)
            recordBand("\(name) remote publisher uplink", kind: "condition", t, value: stats.remotePublisherTransport.networkCondition.rawValue,
                       detail: reason(stats.remotePublisherTransport), stream: name)
            recordBand("\(name) degradation source", kind: "source", t, value: stats.networkDegradationSource.rawValue, detail: "", stream: name)
        case .publisherNetworkConditionChanged(let stats, let why):
            markers.append(ReportMarker(time: t, kind: "event", text: "\(who) uplink → \(stats.transport.networkCondition.rawValue) (\(why.rawValue))"))
        case .publisherVideoQualityChanged(let stats, let why):
            markers.append(ReportMarker(time: t, kind: "event", text: "\(who) video quality: \(why.rawValue) → \(stats.videoLayers.map { "\($0.width)x\($0.height)\($0.qualityLimitationReason == .none ? "" : " limited by \($0.qualityLimitationReason.rawValue)")" }.joined(separator: ", "))"))
        case .subscriberNetworkConditionChanged(let stats, let why):
            markers.append(ReportMarker(time: t, kind: "event", text: "\(who) downlink → \(stats.transport.networkCondition.rawValue), remote uplink \(stats.remotePublisherTransport.networkCondition.rawValue), source \(stats.networkDegradationSource.rawValue) (\(why.rawValue))"))
        case .subscriberVideoQualityChanged(let stats, let why):
            markers.append(ReportMarker(time: t, kind: "event", text: "\(who) received video: \(why.rawValue) → \(stats.width)x\(stats.height)"))
        case .participantConnectionQualityChanged(let quality):
            markers.append(ReportMarker(time: t, kind: "event", text: "\(who)\((callback.stream?.rawValue ?? "").isEmpty ? "" : " [\(callback.stream?.rawValue ?? "")]") connection quality → \(quality.rawValue)"))
        case .publisherAudioNetworkStatsUpdated, .subscriberAudioNetworkStatsUpdated:
            break
        }
    }

    /// RTT of the selected candidate pair and the largest video jitter (inbound for a receiver,
    /// remote-inbound for a sender), per peer connection, in ms.
    mutating func ingestRaw(_ samples: [StatsSample]) {
        let connectionsPerPeer = Dictionary(grouping: samples, by: \.peer).mapValues { Set($0.map(\.peerConnection)).count }
        for sample in samples {
            let t = (sample.time - origin) / 1000
            let name = (connectionsPerPeer[sample.peer] ?? 1) > 1 ? "\(sample.peer) \(sample.peerConnection)" : sample.peer
            let report = sample.report
            let selectedIDs = Set(report.entries(ofType: .transport).compactMap(\.selectedCandidatePairID))
            let pairs = report.entries(ofType: .candidatePair)
            let chosen = pairs.first { selectedIDs.contains($0.id) }
                ?? pairs.filter { $0.selected == true || ($0.nominated == true && $0.state == "succeeded") }
                    .max { ($0.bytesReceived ?? 0) + ($0.bytesSent ?? 0) < ($1.bytesReceived ?? 0) + ($1.bytesSent ?? 0) }
            if let rtt = chosen?.currentRoundTripTime { add("delay", "\(name) RTT", t, rtt * 1000) }
            let receivedJitter = report.entries(ofType: .inboundRTP).filter { $0.kind == "video" }.compactMap(\.jitter).max()
            let sentJitter = report.entries(ofType: .remoteInboundRTP).filter { $0.kind == "video" }.compactMap(\.jitter).max()
            if let receivedJitter { add("delay", "\(name) jitter (received video)", t, receivedJitter * 1000) }
            if let sentJitter { add("delay", "\(name) jitter (sent video, receiver's report)", t, sentJitter * 1000) }
        }
    }

    /// The charts, without the series of the receive streams in `leftOut` (labels).
    func charts(leavingOut leftOut: Set<String> = []) -> [(id: String, title: String, unit: String, series: [ReportSeries])] {
        var charts = Self.chartTitles.map { chart in
            (chart.id, chart.title, chart.unit, (seriesOrder[chart.id] ?? []).filter { !leftOut.contains(seriesStream[chart.id]?[$0] ?? "") }.compactMap { series[chart.id]?[$0] })
        }
        if let index = charts.firstIndex(where: { $0.0 == "loss" }) {
            charts[index].3 = loss.keys.sorted().filter { !leftOut.contains(lossStream[$0] ?? "") }.compactMap { loss[$0] }
        }
        return charts.map { (id: $0.0, title: $0.1, unit: $0.2, series: $0.3) }
    }

    /// The bands in order of appearance, without those of the receive streams in `leftOut`.
    func orderedBands(leavingOut leftOut: Set<String> = []) -> [ReportBand] {
        bandOrder.filter { !leftOut.contains(bandStream[$0] ?? "") }.compactMap { bands[$0] }
    }

    // MARK: Helpers

    private func reason(_ transport: TransportStats) -> String {
        transport.networkConditionReason == .none || transport.networkConditionReason == .unknown ? "" : transport.networkConditionReason.rawValue
    }

    private mutating func add(_ chart: String, _ name: String, _ time: Double, _ value: Double, dashed: Bool = false, stream: String? = nil) {
        if series[chart]?[name] == nil {
            series[chart, default: [:]][name] = ReportSeries(name: name, dashed: dashed)
            seriesOrder[chart, default: []].append(name)
            if let stream { seriesStream[chart, default: [:]][name] = stream }
        }
        series[chart]?[name]?.append(time, value)
    }

    private mutating func recordBand(_ label: String, kind: String, _ time: Double, value: String, detail: String, stream: String? = nil) {
        if bands[label] == nil {
            bands[label] = ReportBand(label: label, kind: kind)
            bandOrder.append(label)
            if let stream { bandStream[label] = stream }
        }
        bands[label]?.record(time, value: value, detail: detail)
    }

    /// Loss in the interval, 100·Δlost/Δtotal; no point when a counter went backwards or
    /// nothing was expected.
    private mutating func lossPoint(_ name: String, _ time: Double, lost: Double, total: Double, stream: String? = nil) {
        defer { previousCounters[name] = (lost, total) }
        guard let previous = previousCounters[name] else { return }
        let deltaLost = lost - previous.lost
        let deltaTotal = total - previous.total
        guard deltaLost >= 0, deltaTotal > 0 else { return }
        if loss[name] == nil {
            loss[name] = ReportSeries(name: name)
            if let stream { lossStream[name] = stream }
        }
        loss[name]?.append(time, min(100, 100 * deltaLost / deltaTotal))
    }

    private mutating func freezesAndPauses(_ name: String, _ time: Double, _ stats: SubscriberVideoNetworkStats) {
        defer { previousFreezes[name] = (stats.freezeCount, stats.totalFreezesDuration, stats.pauseCount, stats.totalPausesDuration) }
        let previous = previousFreezes[name] ?? (0, 0, 0, 0)
        if stats.freezeCount > previous.count {
            let length = max(0, stats.totalFreezesDuration - previous.duration) / 1000
            let count = stats.freezeCount - previous.count
            markers.append(ReportMarker(time: max(0, time - length), end: time, kind: "freeze", text: "\(name) \(count > 1 ? "\(count) freezes" : "freeze"), \(String(format: "%.1f", length)) s"))
        }
        if stats.pauseCount > previous.pauses {
            let length = max(0, stats.totalPausesDuration - previous.pauseDuration) / 1000
            markers.append(ReportMarker(time: max(0, time - length), end: time, kind: "pause", text: "\(name) pause, \(String(format: "%.1f", length)) s"))
        }
    }
}
