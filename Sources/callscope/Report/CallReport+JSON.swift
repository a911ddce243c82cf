import CallScopeExport
import Foundation
import Observability

extension CallReport {
    /// The data the page's script draws, as JSON (series reduced for drawing; the summary from
    /// every value).
    func jsonData() -> String {
        func round(_ value: Double, _ scale: Double) -> Double { (value * scale).rounded() / scale }
        let chartObjects: [[String: Any]] = charts.map { chart in
            [
                "id": chart.id, "title": chart.title, "unit": chart.unit,
                "series": chart.series.map { series -> [String: Any] in
                    [
                        "name": series.name, "dashed": series.dashed, "count": series.points.count,
                        "points": series.pointsForDrawing().map { [round($0.time, 1000), round($0.value, 100)] },
                    ]
                },
            ]
        }
        let bandObjects: [[String: Any]] = bands.map { band in
            ["label": band.label, "kind": band.kind,
             "segments": band.segments.map { ["from": round($0.from, 1000), "to": round($0.to, 1000), "value": $0.value, "detail": $0.detail] }]
        }
        let markerObjects: [[String: Any]] = markers.map { marker in
            var object: [String: Any] = ["t": round(marker.time, 1000), "kind": marker.kind, "text": marker.text]
            if let end = marker.end { object["end"] = round(end, 1000) }
            return object
        }
        let streamObjects: [[String: Any]] = streams.map { row in
            var conditions: [String: Double] = [:]
            for (key, value) in row.conditionSeconds { conditions[key.rawValue] = round(value, 10) }
            var sources: [String: Double] = [:]
            for (key, value) in row.degradationSeconds { sources[key.rawValue] = round(value, 10) }
            return [
                "peer": row.peer, "stream": row.stream, "direction": row.direction.rawValue, "duration": round(row.duration, 10),
                "meanBitrate": round(row.meanBitrate, 1), "p5Bitrate": round(row.p5Bitrate, 1),
                "lossPercent": round(row.lossFraction * 100, 100), "packetsLost": row.packetsLost,
                "freezes": row.freezeCount, "freezeSeconds": round(row.freezeDuration, 10),
                "conditionSeconds": conditions, "degradationSeconds": sources,
                "dominantSource": row.dominantDegradationSource.rawValue,
            ]
        }
        let document: [String: Any] = [
            "file": URL(fileURLWithPath: file).lastPathComponent, "format": format,
            "start": startTime, "duration": round(duration, 1000), "peers": peers, "samples": sampleCount,
            "problems": Array(problems.prefix(20)), "problemCount": problems.count,
            "charts": chartObjects, "bands": bandObjects, "markers": markerObjects, "streams": streamObjects,
            "worst": worstMoments.map { ["t": round($0.time, 1000), "text": $0.text] },
            "idle": ["line": idleLine ?? "", "streams": idleStreams.map(\.label)],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) else { return "{}" }
        // Inside <script>, "</" would end the element early.
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
    }

    /// The whole page.
    func html() -> String {
        let title = "CallScope report — " + URL(fileURLWithPath: file).lastPathComponent
        return ReportTemplate.page
            .replacingOccurrences(of: "__CALLSCOPE_TITLE__", with: ReportTemplate.escapeHTML(title))
            .replacingOccurrences(of: "__CALLSCOPE_DATA__", with: jsonData())
    }
}
