#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The formats ``StatsTimeline/read(_:)`` recognises from content.
public enum StatsSourceFormat: String, Sendable, Hashable {
    /// Our `webrtc-stats-recording` NDJSON (see docs/spec/recording-format.md).
    case recording
    /// Chrome's `chrome://webrtc-internals` "Create Dump" JSON.
    case webrtcInternals
    /// An `rtcstats` dump: NDJSON of `[event, pcId, data, timestamp]` with delta-compressed
    /// `getstats` (version 1), or `RTCStatsDump` + metadata + events with delta times (version 3).
    case rtcstats
    /// One `getStats()` result: a JSON array of entries or an object keyed by id.
    case singleReport
}

/// One `getStats()` result of one peer connection at one time.
public struct StatsSample: Sendable, Hashable {
    /// Unix ms when the sample was taken.
    public var time: Double
    /// The endpoint label (`publisher`, `subscriber`, or any name).
    public var peer: String
    /// A stable label of the peer connection within that peer.
    public var peerConnection: String
    /// The report.
    public var report: StatsReport

    /// Creates a sample.
    public init(time: Double, peer: String, peerConnection: String, report: StatsReport) {
        self.time = time
        self.peer = peer
        self.peerConnection = peerConnection
        self.report = report
    }
}

/// A non-stats line worth replaying: a sender-stats message, an ICE state change, ...
public struct TimelineEvent: Sendable, Hashable {
    /// Unix ms.
    public var time: Double
    /// The endpoint label.
    public var peer: String
    /// The peer connection it concerns, when the source says.
    public var peerConnection: String?
    /// The event name, e.g. `sender-stats`.
    public var name: String
    /// The event payload, raw.
    public var data: JSONValue

    /// Creates an event.
    public init(time: Double, peer: String, peerConnection: String? = nil, name: String, data: JSONValue) {
        self.time = time
        self.peer = peer
        self.peerConnection = peerConnection
        self.name = name
        self.data = data
    }
}

/// One item of a timeline, in time order.
public enum TimelineItem: Sendable, Hashable {
    case sample(StatsSample)
    case event(TimelineEvent)

    /// Unix ms of the item.
    public var time: Double {
        switch self {
        case .sample(let sample): sample.time
        case .event(let event): event.time
        }
    }
}

/// A call's stats over time, from any supported source, plus what could not be read.
public struct StatsTimeline: Sendable {
    /// The detected source format.
    public var format: StatsSourceFormat
    /// Header fields (a recording's line 1, a dump's user agent, ...).
    public var metadata: [StatsField]
    /// Samples and events in time order.
    public var items: [TimelineItem]
    /// Damaged parts that were skipped (each with its line or series); the rest was read.
    public var problems: [StatsParseError]
    /// What was read, skipped and dropped, counted (``StatsDataQuality/summaryLine`` is the
    /// one-line summary a replay ends with).
    public var quality: StatsDataQuality

    /// Creates a timeline.
    public init(format: StatsSourceFormat, metadata: [StatsField] = [], items: [TimelineItem], problems: [StatsParseError] = [], quality: StatsDataQuality = StatsDataQuality()) {
        self.format = format
        self.metadata = metadata
        self.items = items
        self.problems = problems
        self.quality = quality
    }

    /// Only the samples, in order.
    public var samples: [StatsSample] {
        items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
    }

    /// Reads any supported format, detected from content; gzip is undone first (within
    /// `limits`), and a UTF-8 byte order mark is skipped.
    ///
    /// Throws only when nothing usable can be read; damaged lines of line-oriented formats and
    /// damaged series of webrtc-internals dumps are skipped, listed in ``problems`` and counted
    /// in ``quality``.
    public static func read(_ bytes: [UInt8], limits: StatsReadLimits = .default) throws(StatsParseError) -> StatsTimeline {
        var problems: [StatsParseError] = []
        var data = bytes
        if Gzip.isCompressed(bytes) {
            let (output, error) = Gzip.decompressPrefix(bytes, limits: limits).parts
            if let error {
                if output.isEmpty || error.code == .expandedSizeLimit || error.code == .lineLengthLimit { throw error }
                problems.append(error)
            }
            data = output
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        var timeline = try detectAndRead(data)
        timeline.problems = problems + timeline.problems
        timeline.quality.samplesRead = 0
        timeline.quality.eventsRead = 0
        for item in timeline.items {
            if case .sample = item { timeline.quality.samplesRead += 1 } else { timeline.quality.eventsRead += 1 }
        }
        timeline.quality.skipped = [:]
        for problem in timeline.problems { timeline.quality.skipped[problem.code, default: 0] += 1 }
        return timeline
    }

    private static func detectAndRead(_ data: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        guard let first = data.firstIndex(where: { !isWhitespace($0) }) else {
            throw StatsParseError(.unknownFormat, "the input is empty")
        }
        let lineEnd = data[first...].firstIndex(of: 0x0A) ?? data.endIndex
        let firstLine = first == data.startIndex && lineEnd == data.endIndex ? data : Array(data[first..<lineEnd])
        if firstLine.starts(with: RTCStatsDumpReader.version3Magic) {
            return try RTCStatsDumpReader.read(data)
        }
        if data[first] == UInt8(ascii: "{") {
            // A webrtc-internals dump is often one line: then the first line is the document,
            // parsed once.
            let isWholeDocument = !data[lineEnd...].contains { !isWhitespace($0) }
            let header = try? JSONParser.parse(firstLine)
            if let header, header["format"]?.string == RecordingReader.formatName {
                return try RecordingReader.read(data)
            }
            if !isWholeDocument, nextLinesLook(like: .recording, data, after: lineEnd) {
                return try RecordingReader.read(data)  // A damaged header: the reader reports line 1.
            }
            let document: JSONValue
            if isWholeDocument, let header { document = header } else { document = try JSONParser.parse(data) }
            if document["PeerConnections"] != nil {
                return try WebRTCInternalsReader.read(document)
            }
            if document["format"] == nil, document.object?.first(where: { $0.value.object == nil && $0.name != "timestamp" }) == nil {
                return try singleReport(document)
            }
            throw StatsParseError(.unknownFormat, "a JSON object that is neither a recording header, a webrtc-internals dump nor a stats report")
        }
        if data[first] == UInt8(ascii: "[") {
            if let line = try? JSONParser.parse(firstLine), let elements = line.array, elements.first?.string != nil {
                return try RTCStatsDumpReader.read(data)
            }
            if lineEnd < data.endIndex, nextLinesLook(like: .rtcstats, data, after: lineEnd) {
                return try RTCStatsDumpReader.read(data)  // Line 1 is damaged: the reader skips and reports it.
            }
            return try singleReport(try JSONParser.parse(data))
        }
        throw StatsParseError(.unknownFormat, "expected JSON (a recording, a webrtc-internals dump, an rtcstats dump or a getStats report)", offset: first)
    }

    /// Whether one of the (up to three) non-blank lines after `lineEnd` is a line of `format`:
    /// a recording sample or event line, or an rtcstats `[event, pcId, data, …]` line.
    private static func nextLinesLook(like format: StatsSourceFormat, _ data: [UInt8], after lineEnd: Int) -> Bool {
        var start = lineEnd + 1
        var looked = 0
        while start < data.endIndex, looked < 3 {
            let end = data[start...].firstIndex(of: 0x0A) ?? data.endIndex
            let line = data[start..<end]
            start = end + 1
            guard line.contains(where: { !isWhitespace($0) }) else { continue }
            looked += 1
            guard let value = try? JSONParser.parse(line) else { continue }
            switch format {
            case .recording:
                if value["t"]?.number != nil, value["report"] != nil || value["event"] != nil { return true }
            case .rtcstats:
                if let elements = value.array, elements.count >= 3, elements.first?.string != nil { return true }
            default: return false
            }
        }
        return false
    }

    private static func singleReport(_ value: JSONValue) throws(StatsParseError) -> StatsTimeline {
        let report = try StatsReport(jsonValue: value)
        let sample = StatsSample(time: report.timestamp ?? 0, peer: "local", peerConnection: "pc", report: report)
        return StatsTimeline(format: .singleReport, items: [.sample(sample)])
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

extension Array where Element == UInt8 {
    /// Splits NDJSON into (1-based line number, bytes) of the non-blank lines.
    func ndjsonLines() -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        var lines: [(Int, ArraySlice<UInt8>)] = []
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            var number = 1
            while start < buffer.count {
                // memchr: lines are long (a getstats line is kilobytes), a byte loop is not.
                let end = memchr(base + start, 0x0A, buffer.count - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? buffer.count
                var blank = true
                for index in start..<end where !StatsTimeline.isWhitespace(base[index]) {
                    blank = false
                    break
                }
                if !blank { lines.append((number, self[start..<end])) }
                number += 1
                start = end + 1
            }
        }
        return lines
    }
}
