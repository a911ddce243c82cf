import CallScopeExport
import Foundation
import Observability
import RTCStats

/// Everything one report page shows, computed from a replayed call: full-resolution series
/// (reduced only for drawing), condition bands, markers and the summary.
struct CallReport {
    var file: String
    var format: String
    var startTime: Double
    var duration: Double
    var peers: [String]
    var sampleCount: Int
    var problems: [String]
    var charts: [(id: String, title: String, unit: String, series: [ReportSeries])] = []
    var bands: [ReportBand] = []
    var markers: [ReportMarker] = []
    var streams: [StreamSummary] = []
    /// Receive streams that never carried media: left out of the bands, charts and table, and
    /// shown as one line (``idleLine``).
    var idleStreams: [ReceiveStreamMedia.Stream] = []
    /// "10 receive streams carried no media", or `nil`.
    var idleLine: String?
    var worstMoments: [(time: Double, text: String)] = []

    init(_ call: ReplayedCall) {
        let samples = call.timeline.samples
        let first = min(samples.first?.time ?? .infinity, call.callbacks.first?.time ?? .infinity)
        startTime = first.isFinite ? first : 0
        let last = max(samples.last?.time ?? 0, call.callbacks.last?.time ?? 0)
        duration = max(0, (last - startTime) / 1000)
        file = call.file
        format = call.timeline.format.rawValue
        peers = Array(Set(samples.map(\.peer))).sorted()
        sampleCount = samples.count
        problems = call.timeline.problems.map { "\($0)" }

        var collector = SeriesCollector(origin: startTime)
        var summary = CallSummaryBuilder(call: URL(fileURLWithPath: call.file).lastPathComponent)
        var media = ReceiveStreamMedia()
        for callback in call.callbacks {
            collector.ingest(callback)
            summary.ingest(callback)
            media.ingest(callback)
        }
        collector.ingestRaw(samples)
        idleStreams = media.withoutMedia
        idleLine = media.line
        let idle = Set(idleStreams.map(\.label))
        streams = summary.summaries().filter { row in
            !(row.direction == .receiving && idle.contains(ReceiveStreamMedia.label(peer: row.peer, stream: row.stream)))
        }
        charts = collector.charts(leavingOut: idle)
        bands = collector.orderedBands(leavingOut: idle)
        markers = collector.markers
        worstMoments = Self.worstMoments(bands: bands, collector: collector)
    }

    /// The longest degraded run of each band, the second with the most loss per side and the
    /// longest freeze: at most ten, in time order.
    private static func worstMoments(bands: [ReportBand], collector: SeriesCollector) -> [(time: Double, text: String)] {
        var moments: [(time: Double, weight: Double, text: String)] = []
        for band in bands {
            let degraded = band.segments.filter { band.kind == "condition" ? ($0.value == "warning" || $0.value == "critical") : ($0.value != "none" && $0.value != "unknown") }
            guard let longest = degraded.max(by: { ($0.to - $0.from) < ($1.to - $1.from) }), longest.to - longest.from >= 1 else { continue }
            let what = band.kind == "condition" ? "\(longest.value)\(longest.detail.isEmpty ? "" : " (\(longest.detail))")" : longest.value
            moments.append((longest.from, longest.to - longest.from, "\(band.label): \(what) for \(Int((longest.to - longest.from).rounded())) s, \(ReportClock.text(longest.from))–\(ReportClock.text(longest.to))"))
        }
        for series in collector.loss.values {
            guard let worst = series.points.max(by: { $0.value < $1.value }), worst.value >= 1 else { continue }
            moments.append((worst.time, worst.value, "\(series.name): \(String(format: "%.1f", worst.value)) % loss at \(ReportClock.text(worst.time))"))
        }
        if let freeze = collector.markers.filter({ $0.kind == "freeze" }).max(by: { ($0.end ?? $0.time) - $0.time < ($1.end ?? $1.time) - $1.time }) {
            moments.append((freeze.time, 0, "\(freeze.text) at \(ReportClock.text(freeze.time))"))
        }
        return moments.sorted { $0.weight > $1.weight }.prefix(10).sorted { $0.time < $1.time }.map { ($0.time, $0.text) }
    }
}

/// `m:ss` (or `h:mm:ss`) from seconds.
enum ReportClock {
    static func text(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.down))
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60) : String(format: "%d:%02d", total / 60, total % 60)
    }
}
