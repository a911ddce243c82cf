/// The formats ``StatsTimeline/read(_:)`` recognises from content.
public enum StatsSourceFormat: String, Sendable, Hashable {
    /// Our `webrtc-stats-recording` NDJSON (see `recording-format.md`).
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
    public var data: StatsValue

    /// Creates an event.
    public init(time: Double, peer: String, peerConnection: String? = nil, name: String, data: StatsValue) {
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
    /// Damaged parts that were skipped; the rest was read.
    public var problems: [StatsParseError]

    /// Creates a timeline.
    public init(format: StatsSourceFormat, metadata: [StatsField] = [], items: [TimelineItem], problems: [StatsParseError] = []) {
        self.format = format
        self.metadata = metadata
        self.items = items
        self.problems = problems
    }

    /// Only the samples, in order.
    public var samples: [StatsSample] {
        items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
    }

    /// Reads any supported format, detected from content; gzip is undone first.
    ///
    /// Throws only when nothing usable can be read; damaged lines of line-oriented formats are
    /// skipped and listed in ``problems``.
    public static func read(_ bytes: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        var problems: [StatsParseError] = []
        var data = bytes
        if Gzip.isCompressed(bytes) {
            let (output, error) = Gzip.decompressPrefix(bytes)
            if let error {
                if output.isEmpty { throw error }
                problems.append(error)
            }
            data = output
        }
        var timeline = try detectAndRead(data)
        timeline.problems = problems + timeline.problems
        return timeline
    }

    private static func detectAndRead(_ data: [UInt8]) throws(StatsParseError) -> StatsTimeline {
        guard let first = data.firstIndex(where: { !isWhitespace($0) }) else {
            throw StatsParseError(.unknownFormat, "the input is empty")
        }
        let lineEnd = data[first...].firstIndex(of: 0x0A) ?? data.endIndex
        let firstLine = Array(data[first..<lineEnd])
        if firstLine.starts(with: RTCStatsDumpReader.version3Magic) {
            return try RTCStatsDumpReader.read(data)
        }
        if data[first] == UInt8(ascii: "{") {
            if let header = try? JSONParser.parse(firstLine), header["format"]?.string == RecordingReader.formatName {
                return try RecordingReader.read(data)
            }
            let document = try JSONParser.parse(data)
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
            return try singleReport(try JSONParser.parse(data))
        }
        throw StatsParseError(.unknownFormat, "expected JSON (a recording, a webrtc-internals dump, an rtcstats dump or a getStats report)", offset: first)
    }

    private static func singleReport(_ value: StatsValue) throws(StatsParseError) -> StatsTimeline {
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
        var start = startIndex
        var number = 1
        while start < endIndex {
            let end = self[start...].firstIndex(of: 0x0A) ?? endIndex
            let line = self[start..<end]
            if line.contains(where: { !StatsTimeline.isWhitespace($0) }) { lines.append((number, line)) }
            number += 1
            start = end + 1
        }
        return lines
    }
}
