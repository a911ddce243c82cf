/// One line of a report chart: every per-second value (for the numbers) and, when there are
/// many, a min/max-per-bucket reduction for drawing.
struct ReportSeries {
    var name: String
    /// Dashed line (the "with RTP overhead" twin of a payload bitrate).
    var dashed = false
    /// Seconds since the call's first sample, and the value.
    var points: [(time: Double, value: Double)] = []

    mutating func append(_ time: Double, _ value: Double) {
        guard time.isFinite, value.isFinite else { return }
        points.append((time, value))
    }

    /// At most `2 * buckets` points: each bucket keeps its lowest and highest value in time
    /// order, so peaks and dips survive on screen. Series with few points are returned as is.
    func pointsForDrawing(buckets: Int = 700) -> [(time: Double, value: Double)] {
        guard points.count > 2 * buckets, let first = points.first, let last = points.last, last.time > first.time else { return points }
        let span = (last.time - first.time) / Double(buckets)
        var result: [(time: Double, value: Double)] = []
        result.reserveCapacity(2 * buckets)
        var index = 0
        for bucket in 0..<buckets {
            let end = bucket == buckets - 1 ? Double.infinity : first.time + span * Double(bucket + 1)
            var low: (time: Double, value: Double)?
            var high: (time: Double, value: Double)?
            while index < points.count, points[index].time < end {
                let point = points[index]
                if low == nil || point.value < low!.value { low = point }
                if high == nil || point.value > high!.value { high = point }
                index += 1
            }
            guard let low, let high else { continue }
            if low.time == high.time { result.append(low) } else { result += low.time < high.time ? [low, high] : [high, low] }
        }
        return result
    }
}

/// A run of one state (a network condition, a degradation source) on one band of the report.
struct ReportSegment {
    var from: Double
    var to: Double
    var value: String
    var detail: String
}

/// One row of coloured segments: the condition of one side, or a stream's degradation source.
struct ReportBand {
    var label: String
    var kind: String            // "condition" or "source"
    var segments: [ReportSegment] = []

    /// Extends the last segment when the state is unchanged, else starts a new one. Each
    /// per-second verdict covers the interval since the previous one.
    mutating func record(_ time: Double, value: String, detail: String) {
        if var last = segments.last, last.value == value, last.detail == detail {
            last.to = max(last.to, time)
            segments[segments.count - 1] = last
            return
        }
        let from = segments.last?.to ?? max(0, time - 1)
        segments.append(ReportSegment(from: from, to: max(time, from), value: value, detail: detail))
    }
}

/// A point or a span on the time axis: a quality event, a freeze, a pause.
struct ReportMarker {
    var time: Double
    var end: Double?
    var kind: String            // "event", "freeze", "pause"
    var text: String
}
