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
    ///
    /// A series whose `values` cannot be read is skipped and reported by name (``StatsParseError/series``);
    /// the connection's other series are kept. Values at implausible times are dropped and
    /// counted in ``StatsTimeline/quality``.
    public static func read(_ document: JSONValue) throws(StatsParseError) -> StatsTimeline {
        guard let connections = document["PeerConnections"]?.object else {
            throw StatsParseError(.unexpectedShape, "a webrtc-internals dump needs a \"PeerConnections\" object")
        }
        var items: [TimelineItem] = []
        var problems: [StatsParseError] = []
        var quality = StatsDataQuality()
        var times = SeriesTimeParser()
        for connection in connections {
            guard let stats = connection.value["stats"]?.object else { continue }
            var reader = ConnectionReader(peerConnection: connection.name)
            items += reader.samples(of: stats, times: &times).map(TimelineItem.sample)
            problems += reader.problems
            for (reason, count) in reader.dropped { quality.drop(reason, count) }
        }
        quality.reordered = 0
        _ = items.sortByTime()  // Connections interleave in time; that is not disorder in the file.
        var metadata: [StatsField] = []
        if let userAgent = document["UserAgent"] { metadata.append(StatsField("browser", userAgent)) }
        return StatsTimeline(format: .webrtcInternals, metadata: metadata, items: items, problems: problems, quality: quality)
    }

    /// One series: its field, the known field it is (looked up once, not per poll), its values,
    /// and its raw start and end times (parsed only when the entry has no timestamp series).
    struct Series {
        /// A series' values: numbers only (most series) or anything.
        enum Values {
            case numbers([Double])
            case values([JSONValue])

            var count: Int {
                switch self {
                case .numbers(let numbers): numbers.count
                case .values(let values): values.count
                }
            }

            subscript(index: Int) -> JSONValue {
                switch self {
                case .numbers(let numbers): .number(numbers[index])
                case .values(let values): values[index]
                }
            }
        }

        var field: String
        var known: KnownField?
        var values: Values
        var startTime: JSONValue?
        var endTime: JSONValue?
    }

    /// The series of one stats id.
    struct EntrySeries {
        var id: String
        var type: String?
        var series: [Series] = []
    }

    /// `<statsId>-<field>`: the field starts after the last `-`, or at `-[` when it is one of
    /// Chrome's bracketed derived series (`IT01V1-[framesReceived-framesDecoded-framesDropped]`).
    /// Searched in the UTF-8 bytes: `-`, `[` and `]` are ASCII, so every split is at a
    /// character boundary.
    static func splitSeriesKey(_ key: String) -> (id: String, field: String)? {
        var copy = key
        let split = copy.withUTF8 { bytes -> (dash: Int, fieldStart: Int)? in
            if bytes.last == UInt8(ascii: "]"), bytes.count >= 2 {
                var index = bytes.count - 2
                while index >= 0 {
                    if bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "[") { return (index, index + 1) }
                    index -= 1
                }
            }
            guard let dash = bytes.lastIndex(of: UInt8(ascii: "-")) else { return nil }
            return (dash, dash + 1)
        }
        guard let split else { return nil }
        let utf8 = key.utf8
        let dash = utf8.index(utf8.startIndex, offsetBy: split.dash)
        let fieldStart = utf8.index(utf8.startIndex, offsetBy: split.fieldStart)
        return (String(key[..<dash]), String(key[fieldStart...]))
    }

    /// A time as whole ms, `nil` when it is not a plausible time (non-finite or beyond ±2^53).
    static func milliseconds(_ time: Double) -> Int64? {
        guard time.isFinite, abs(time) < 9.0e15 else { return nil }
        return Int64(time.rounded())
    }

    /// The first poll at or after `time` (1 ms of float noise allowed); the last poll if none.
    static func poll(for time: Double, in polls: [Int64], from lowest: Int = 0) -> Int {
        var low = lowest
        var high = polls.count
        while low < high {
            let middle = (low + high) / 2
            if Double(polls[middle]) < time - 1 { low = middle + 1 } else { high = middle }
        }
        return min(low, polls.count - 1)
    }
}
