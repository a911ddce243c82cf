/// Writes a `webrtc-stats-recording` (version 1, the format ``RecordingReader`` reads) one line
/// at a time to an output the caller supplies: a file, a buffer, an upload. It does no I/O of
/// its own and keeps no state: each line is one call of the output, so lines written from
/// several tasks come out whole as long as the output takes one call at a time.
///
/// The header must be the output's first line: write it first, or (as `callscope call --record`
/// does, to list what it saw during the call) keep the other lines and put it before them at the
/// end.
///
/// ```swift
/// let writer = RecordingWriter { line in file.write(Data(line)) }
/// writer.writeHeader(RecordingHeader(scenario: "my-call", intervalMilliseconds: 1000))
/// writer.writeSample(time: 1_795_978_382_333, peer: "alice", peerConnection: "pc-1", report: report)
/// ```
public struct RecordingWriter: Sendable {
    private let output: @Sendable ([UInt8]) -> Void

    /// A writer handing each line, UTF-8 with its `\n`, to `output`.
    public init(output: @escaping @Sendable (_ line: [UInt8]) -> Void) {
        self.output = output
    }

    /// The header line: `format`, `version`, then the header's keys.
    public func writeHeader(_ header: RecordingHeader) {
        emit(JSONWriter.string(header.jsonValue))
    }

    /// A sample line: `{"t", "peer", "pc", "report"}`, the report's entries with every field.
    /// - Parameters:
    ///   - time: Unix ms when the sample was taken.
    ///   - peer: The endpoint's label (`publisher`, `subscriber`, or any name).
    ///   - peerConnection: A stable label of the peer connection within that endpoint.
    ///   - report: The `getStats()` result.
    public func writeSample(time: Double, peer: String, peerConnection: String, report: StatsReport) {
        var line = NDJSONLine(t: time)
        line.string("peer", peer)
        line.string("pc", peerConnection)
        line.json("report", report.jsonArray())
        emit(line.line)
    }

    /// An event line: `{"t", "peer", "pc" (when given), "event", "data"}`.
    /// - Parameter name: One of ``TimelineEventName`` for the events a replay acts on, or any
    ///   name for an event worth keeping.
    public func writeEvent(time: Double, peer: String, peerConnection: String? = nil, name: String, data: JSONValue) {
        var line = NDJSONLine(t: time)
        line.string("peer", peer)
        if let peerConnection { line.string("pc", peerConnection) }
        line.string("event", name)
        line.value("data", data)
        emit(line.line)
    }

    /// A ``TimelineEventName/senderStats`` event: a sender-stats message `peer` received on
    /// `peerConnection`. The message is kept as received: JSON text becomes `data`, other text
    /// a string (a replay counts it as a bad message, as the live monitor did).
    public func writeSenderStats(time: Double, peer: String, peerConnection: String?, message: String) {
        let data = (try? JSONParser.parse(Array(message.utf8))) ?? .string(message)
        writeEvent(time: time, peer: peer, peerConnection: peerConnection, name: TimelineEventName.senderStats, data: data)
    }

    /// A timeline item as a line (a sample or an event), e.g. to copy or relabel a recording.
    public func write(_ item: TimelineItem) {
        switch item {
        case .sample(let sample): writeSample(time: sample.time, peer: sample.peer, peerConnection: sample.peerConnection, report: sample.report)
        case .event(let event): writeEvent(time: event.time, peer: event.peer, peerConnection: event.peerConnection, name: event.name, data: event.data)
        }
    }

    private func emit(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        output(bytes)
    }
}

/// The first line of a recording: what was recorded, with what. A reader gets these keys back
/// as ``StatsTimeline/metadata``.
public struct RecordingHeader: Sendable, Hashable {
    /// `scenario`: a name for what was recorded.
    public var scenario: String?
    /// `browser`: the WebRTC implementation, e.g. `Chromium 156.0.8078.108`.
    public var browser: String?
    /// `sfu`: the router, e.g. `janus 1.1.2`.
    public var sfu: String?
    /// `interval_ms`: the sampling interval in milliseconds.
    public var intervalMilliseconds: Double?
    /// Further keys, written after the ones above in this order (`publishers`, ...). Keys the
    /// header already writes (`format`, `version`, and the ones above when set) are left out.
    public var fields: [StatsField]

    /// Creates a header; nil values are left out of the line.
    public init(scenario: String? = nil, browser: String? = nil, sfu: String? = nil, intervalMilliseconds: Double? = nil,
                fields: [StatsField] = []) {
        self.scenario = scenario
        self.browser = browser
        self.sfu = sfu
        self.intervalMilliseconds = intervalMilliseconds
        self.fields = fields
    }

    /// The header line's JSON object.
    var jsonValue: JSONValue {
        var object = [StatsField("format", .string(RecordingReader.formatName)), StatsField("version", .number(1))]
        if let scenario { object.append(StatsField("scenario", .string(scenario))) }
        if let browser { object.append(StatsField("browser", .string(browser))) }
        if let sfu { object.append(StatsField("sfu", .string(sfu))) }
        if let intervalMilliseconds { object.append(StatsField("interval_ms", .number(intervalMilliseconds))) }
        let written = Set(object.map(\.name))
        object += fields.filter { !written.contains($0.name) }
        return .object(object)
    }
}
