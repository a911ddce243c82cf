import Foundation

/// Reads Chrome's `chrome://webrtc-internals` "Create Dump" JSON and rebuilds one report per
/// timestamp for each peer connection.
///
/// The dump holds, per connection, a `stats` object of series keyed `<statsId>-<field>`, each
/// with `startTime`, `endTime` and `values` (a JSON-encoded array). Newer Chrome adds
/// `statsType` to each series and a `<statsId>-timestamp` series with the exact sample times;
/// older dumps have neither, so the type comes from the id prefix and the times are spread
/// evenly between `startTime` and `endTime`. Series of one id are aligned from their newest value
/// (Chrome keeps a bounded history, so older values may be missing from some series). One report
/// is rebuilt per poll: `remote-inbound-rtp`/`remote-outbound-rtp` entries, stamped with the time
/// their RTCP arrived, join the first poll at or after that time.
public enum WebRTCInternalsReader {
    /// Reads a parsed dump.
    public static func read(_ document: StatsValue) throws(StatsParseError) -> StatsTimeline {
        guard let connections = document["PeerConnections"]?.object else {
            throw StatsParseError(.unexpectedShape, "a webrtc-internals dump needs a \"PeerConnections\" object")
        }
        var items: [TimelineItem] = []
        var problems: [StatsParseError] = []
        for connection in connections {
            guard let stats = connection.value["stats"]?.object else { continue }
            do throws(StatsParseError) {
                items += try samples(of: stats, peerConnection: connection.name).map(TimelineItem.sample)
            } catch {
                problems.append(StatsParseError(error.code, "peer connection \(connection.name): \(error.message)"))
            }
        }
        items.sort { $0.time < $1.time }
        var metadata: [StatsField] = []
        if let userAgent = document["UserAgent"] { metadata.append(StatsField("browser", userAgent)) }
        return StatsTimeline(format: .webrtcInternals, metadata: metadata, items: items, problems: problems)
    }

    private struct Series {
        var field: String
        var values: [StatsValue]
        var startTime: Double?
        var endTime: Double?
    }

    private static func samples(of stats: [StatsField], peerConnection: String) throws(StatsParseError) -> [StatsSample] {
        var seriesByID: [String: [Series]] = [:]
        var typeByID: [String: String] = [:]
        var idOrder: [String] = []
        for member in stats {
            guard let (id, field) = splitSeriesKey(member.name) else { continue }
            guard let encoded = member.value["values"]?.string else { continue }
            guard case .array(let values) = try JSONParser.parse(encoded) else {
                throw StatsParseError(.unexpectedShape, "series \(member.name): \"values\" is not an encoded array")
            }
            if seriesByID[id] == nil { idOrder.append(id) }
            if let type = member.value["statsType"]?.string { typeByID[id] = type }
            seriesByID[id, default: []].append(Series(
                field: field, values: values,
                startTime: time(member.value["startTime"]), endTime: time(member.value["endTime"])))
        }
        // Each id's values with their own times.
        var timed: [(id: String, type: StatsType, times: [Double], series: [Series])] = []
        for id in idOrder {
            guard let series = seriesByID[id], let longest = series.map(\.values.count).max(), longest > 0 else { continue }
            let times: [Double]
            if let stamps = series.first(where: { $0.field == "timestamp" }) {
                times = stamps.values.compactMap(\.number)
            } else {
                let reference = series.first { $0.values.count == longest }!
                guard let start = reference.startTime, let end = reference.endTime else { continue }
                let step = longest > 1 ? (end - start) / Double(longest - 1) : 0
                times = (0..<longest).map { start + Double($0) * step }
            }
            let type = typeByID[id].map(StatsType.init(rawValue:)) ?? StatsType(inferredFromID: id) ?? StatsType(rawValue: "unknown")
            timed.append((id, type, times, series))
        }
        // The polls: the times of the local entries (remote-* entries carry the time their RTCP
        // arrived, before the poll that reported them). Each value joins the first poll at or
        // after its own time.
        var pollSet = Set<Int64>()
        for item in timed where item.type != .remoteInboundRTP && item.type != .remoteOutboundRTP {
            for time in item.times { if let poll = Self.milliseconds(time) { pollSet.insert(poll) } }
        }
        if pollSet.isEmpty { for item in timed { for time in item.times { if let poll = Self.milliseconds(time) { pollSet.insert(poll) } } } }
        let polls = pollSet.sorted()
        guard !polls.isEmpty else { return [] }
        var entriesByPoll = [[StatsEntry]](repeating: [], count: polls.count)
        for item in timed {
            for (index, time) in item.times.enumerated() where Self.milliseconds(time) != nil {
                var fields: [StatsField] = []
                for series in item.series where series.field != "timestamp" {
                    // Align from the newest value: a shorter series started later.
                    let offset = series.values.count - item.times.count + index
                    if offset >= 0, offset < series.values.count { fields.append(StatsField(series.field, series.values[offset])) }
                }
                let poll = Self.poll(for: time, in: polls)
                entriesByPoll[poll].append(StatsEntry(id: item.id, type: item.type, timestamp: time, fields: fields))
            }
        }
        return polls.indices.compactMap { index in
            entriesByPoll[index].isEmpty ? nil : StatsSample(time: Double(polls[index]), peer: "local", peerConnection: peerConnection, report: StatsReport(entries: entriesByPoll[index]))
        }
    }

    /// `<statsId>-<field>`: the field starts after the last `-`, or at `-[` when it is one of
    /// Chrome's bracketed derived series (`IT01V1-[framesReceived-framesDecoded-framesDropped]`).
    static func splitSeriesKey(_ key: String) -> (id: String, field: String)? {
        if key.hasSuffix("]"), let bracket = key.range(of: "-[", options: .backwards) {
            return (String(key[..<bracket.lowerBound]), String(key[key.index(after: bracket.lowerBound)...]))
        }
        guard let dash = key.lastIndex(of: "-") else { return nil }
        return (String(key[..<dash]), String(key[key.index(after: dash)...]))
    }

    /// A time as whole ms, `nil` when it is not a plausible time (non-finite or beyond ±2^53).
    private static func milliseconds(_ time: Double) -> Int64? {
        guard time.isFinite, abs(time) < 9.0e15 else { return nil }
        return Int64(time.rounded())
    }

    /// The first poll at or after `time` (1 ms of float noise allowed); the last poll if none.
    private static func poll(for time: Double, in polls: [Int64]) -> Int {
        var low = 0
        var high = polls.count
        while low < high {
            let middle = (low + high) / 2
            if Double(polls[middle]) < time - 1 { low = middle + 1 } else { high = middle }
        }
        return min(low, polls.count - 1)
    }

    /// A series time: a number of ms, or a date string (`2024-05-01T10:00:00.000Z` or Chrome's
    /// locale form).
    private static func time(_ value: StatsValue?) -> Double? {
        if let number = value?.number { return number }
        guard let text = value?.string else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) {
            return date.timeIntervalSince1970 * 1000
        }
        if let date = Date(legacyDumpTime: text) { return date.timeIntervalSince1970 * 1000 }
        return nil
    }
}

private extension Date {
    /// Old dumps wrote `new Date().toString()`-like times; try the common shapes.
    init?(legacyDumpTime text: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for pattern in ["EEE MMM dd yyyy HH:mm:ss 'GMT'Z", "M/d/yyyy, h:mm:ss a", "yyyy-MM-dd'T'HH:mm:ss.SSSZ"] {
            formatter.dateFormat = pattern
            if let date = formatter.date(from: String(text.prefix(33))) {
                self = date
                return
            }
        }
        return nil
    }
}
