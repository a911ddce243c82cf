/// Rebuilds the reports of one peer connection of a webrtc-internals dump from its series.
struct ConnectionReader {
    typealias Series = WebRTCInternalsReader.Series
    typealias EntrySeries = WebRTCInternalsReader.EntrySeries

    let peerConnection: String
    /// Series and entries that were skipped, each named.
    private(set) var problems: [StatsParseError] = []
    /// Values dropped from kept series, by reason.
    private(set) var dropped: [StatsDataQuality.DropReason: Int] = [:]

    init(peerConnection: String) {
        self.peerConnection = peerConnection
    }

    private mutating func skip(_ error: StatsParseError, series: String) {
        problems.append(StatsParseError(error.code, "peer connection \(peerConnection): \(error.message)", offset: error.offset).in(series: series))
    }

    private mutating func drop(_ reason: StatsDataQuality.DropReason, _ count: Int) {
        if count > 0 { dropped[reason, default: 0] += count }
    }

    /// Groups the series by stats id (in dump order), reading each series on its own: a bad
    /// one is skipped and named, the others are kept.
    private mutating func group(_ stats: [StatsField]) -> [EntrySeries] {
        var entries: [EntrySeries] = []
        var positionByID: [String: Int] = [:]
        var lastPosition: Int?
        for member in stats {
            guard let (id, field) = WebRTCInternalsReader.splitSeriesKey(member.name) else {
                skip(StatsParseError(.unexpectedShape, "a series key must be <statsId>-<field>"), series: member.name)
                continue
            }
            guard case .object(let attributes) = member.value else {
                skip(StatsParseError(.unexpectedShape, "a series must be an object with \"values\""), series: member.name)
                continue
            }
            var encoded: String?
            var statsType: String?
            var startTime: JSONValue?
            var endTime: JSONValue?
            for attribute in attributes {
                switch attribute.name {
                case "values": encoded = attribute.value.string
                case "statsType": statsType = attribute.value.string
                case "startTime": startTime = attribute.value
                case "endTime": endTime = attribute.value
                default: continue
                }
            }
            guard let encoded else {
                skip(StatsParseError(.unexpectedShape, "\"values\" is missing or not a string"), series: member.name)
                continue
            }
            let values: Series.Values
            do throws(StatsParseError) {
                if let numbers = JSONParser.parseNumberArray(encoded) {
                    values = .numbers(numbers)
                } else if let strings = JSONParser.parseStringArray(encoded) {
                    values = .values(strings)
                } else {
                    guard case .array(let array) = try JSONParser.parse(encoded) else {
                        throw StatsParseError(.unexpectedShape, "\"values\" is not an encoded array")
                    }
                    values = .values(array)
                }
            } catch {
                skip(StatsParseError(error.code, "\"values\": \(error.message)", offset: error.offset), series: member.name)
                continue
            }
            let position: Int
            if let lastPosition, entries[lastPosition].id == id {
                position = lastPosition  // A dump lists an id's series together: no hashing.
            } else if let existing = positionByID[id] {
                position = existing
            } else {
                position = entries.count
                positionByID[id] = position
                entries.append(EntrySeries(id: id))
            }
            lastPosition = position
            if let statsType { entries[position].type = statsType }
            entries[position].series.append(Series(field: field, known: KnownField(name: field), values: values, startTime: startTime, endTime: endTime))
        }
        return entries
    }

    /// `sorted` without repeated elements.
    static func unique(sorted: [Int64]) -> [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(sorted.count)
        for value in sorted where result.last != value { result.append(value) }
        return result
    }

    /// One report per poll of this connection.
    mutating func samples(of stats: [StatsField], times parser: inout SeriesTimeParser) -> [StatsSample] {
        // Each id's values with their own times.
        var timed: [(id: String, type: StatsType, times: [Double], series: [Series])] = []
        for entry in group(stats) {
            guard let longest = entry.series.lazy.map({ $0.values.count }).max(), longest > 0 else { continue }
            var times: [Double]
            var series = entry.series
            if let stampIndex = series.firstIndex(where: { $0.field == "timestamp" }) {
                switch series.remove(at: stampIndex).values {
                case .numbers(let numbers): times = numbers
                case .values(let stamps):
                    times = stamps.compactMap(\.number)
                    drop(.implausibleTime, stamps.count - times.count)
                }
            } else {
                let reference = series.first { $0.values.count == longest }!
                guard let start = parser.milliseconds(reference.startTime), let end = parser.milliseconds(reference.endTime) else {
                    skip(StatsParseError(.unexpectedShape, "entry \(entry.id) has no timestamp series and no readable startTime/endTime; its \(series.count) series are skipped"), series: "\(entry.id)-*")
                    continue
                }
                let step = longest > 1 ? (end - start) / Double(longest - 1) : 0
                times = (0..<longest).map { start + Double($0) * step }
            }
            // A value older than the oldest time has no time to be placed at.
            for one in series where one.values.count > times.count { drop(.noTime, one.values.count - times.count) }
            let type = entry.type.map(StatsType.init(rawValue:)) ?? StatsType(inferredFromID: entry.id) ?? StatsType(rawValue: "unknown")
            timed.append((entry.id, type, times, series))
        }
        // The polls: the times of the local entries (remote-* entries carry the time their RTCP
        // arrived, before the poll that reported them). Each value joins the first poll at or
        // after its own time.
        // Sorted and made unique once (most ids share the same poll times: hashing each was slow).
        var polls: [Int64] = []
        for item in timed where item.type != .remoteInboundRTP && item.type != .remoteOutboundRTP {
            for time in item.times { if let poll = WebRTCInternalsReader.milliseconds(time) { polls.append(poll) } }
        }
        if polls.isEmpty { for item in timed { for time in item.times { if let poll = WebRTCInternalsReader.milliseconds(time) { polls.append(poll) } } } }
        polls.sort()
        polls = Self.unique(sorted: polls)
        guard !polls.isEmpty else { return [] }
        var entriesByPoll = [[StatsEntry]](repeating: [], count: polls.count)
        for item in timed {
            var poll = 0
            for (index, time) in item.times.enumerated() {
                guard WebRTCInternalsReader.milliseconds(time) != nil else {
                    drop(.implausibleTime, item.series.count)
                    continue
                }
                var fields: [StatsField] = []
                var known: [KnownField?] = []
                fields.reserveCapacity(item.series.count)
                known.reserveCapacity(item.series.count)
                item.series.withUnsafeBufferPointer { allSeries in
                    for position in allSeries.indices {
                        // Align from the newest value: a shorter series started later.
                        let count = allSeries[position].values.count
                        let offset = count - item.times.count + index
                        if offset >= 0, offset < count {
                            fields.append(StatsField(allSeries[position].field, allSeries[position].values[offset]))
                            known.append(allSeries[position].known)
                        }
                    }
                }
                // Times usually rise: search from the previous poll.
                poll = WebRTCInternalsReader.poll(for: time, in: polls, from: poll > 0 && Double(polls[poll - 1]) < time - 1 ? poll : 0)
                if entriesByPoll[poll].isEmpty { entriesByPoll[poll].reserveCapacity(timed.count) }
                entriesByPoll[poll].append(StatsEntry(id: item.id, type: item.type, timestamp: time, fields: fields, known: known))
            }
        }
        return polls.indices.compactMap { index in
            entriesByPoll[index].isEmpty ? nil : StatsSample(time: Double(polls[index]), peer: "local", peerConnection: peerConnection, report: StatsReport(entries: entriesByPoll[index]))
        }
    }
}
