import CallScopeReplay
import Calls
import CallScopeCore
import Foundation
import RTCStats

/// Writes `callscope call --record FILE`: a `webrtc-stats-recording` v1 of what this client's
/// SDK fed its stats monitors (recording-format.md), so `callscope replay FILE` gives the same
/// callbacks. Lines are kept in memory and the file is written at the end of the call, because
/// the header (line 1) lists the publishers seen during the call.
///
/// Labels: `peer` is the client's display name for its subscribers' connections and
/// `<display>.publisher` for its publishing connection (separate endpoints, as the live SDK
/// keeps separate monitors); `pc` is the media engine's peer-connection id.
final class CallRecorder: Sendable {
    let path: String
    let display: String
    private let state = Locked(State())

    private struct State {
        var lines: [String] = []
        var publishers: [String: JSONValue] = [:]
        var publisherOrder: [String] = []
        var boundConnections: Set<String> = []
    }

    init(path: String, display: String) throws {
        guard !path.hasSuffix(".gz") else { throw UsageError("--record writes plain ndjson; give a name not ending in .gz") }
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw UsageError("--record: cannot create \(path)") }
        self.path = path
        self.display = display
    }

    var publisherPeer: String { display + ".publisher" }

    /// One input the session fed a monitor.
    func record(_ record: CallStatsRecord) {
        switch record {
        case .publisherSample(let pc, let report):
            sample(peer: publisherPeer, pc: pc, report: report)
        case .subscriberSample(let stream, let pc, let report):
            bind(stream, pc: pc, time: report.timestamp ?? Self.now())
            sample(peer: display, pc: pc, report: report)
        case .senderStatsReceived(let stream, let pc, let message, let time):
            bind(stream, pc: pc, time: time)
            // The message as received; text that is not JSON stays a string (the replay counts
            // it as a bad message, as the live monitor did).
            let data = (try? JSONParser.parse(Array(message.utf8))) ?? .string(message)
            event(time: time, peer: display, pc: pc, name: "sender-stats", data: data)
        case .receiveLimitChanged(let stream, let pc, let limit, let time):
            bind(stream, pc: pc, time: time)
            event(time: time, peer: display, pc: pc, name: TimelineEventName.subscriberReceiveLimit,
                  data: .object([StatsField("limit", .string(limit.rawValue)), StatsField("stream", .string(stream.streamId))]))
        }
    }

    /// A lifecycle event (`session.streamCreated`, `subscriber.didDisconnect`, ...).
    func lifecycle(_ name: String, stream: String, data: JSONValue) {
        var fields = data.object ?? []
        if !stream.isEmpty { fields.append(StatsField("stream", .string(stream))) }
        event(time: Self.now(), peer: display, pc: nil, name: name, data: .object(fields))
    }

    /// Notes a stream of the call for the header's `publishers`.
    func noteStream(_ stream: CallStream, own: Bool) {
        state.withLock { state in
            let id = stream.connection.connectionId
            if state.publishers[id] == nil { state.publisherOrder.append(id) }
            state.publishers[id] = .object([
                StatsField("publisher", .string(id)), StatsField("stream", .string(stream.streamId)),
                StatsField("name", stream.name.map(JSONValue.string) ?? .null), StatsField("own", .bool(own)),
            ])
        }
    }

    /// Writes the file: the header, then every line in the order it was recorded.
    func finish(browser: String?, sfu: String?, intervalMilliseconds: Double) throws {
        let (lines, publishers) = state.withLock { state in (state.lines, state.publisherOrder.compactMap { state.publishers[$0] }) }
        let header: JSONValue = .object([
            StatsField("format", .string(RecordingReader.formatName)), StatsField("version", .number(1)),
            StatsField("scenario", .string("callscope-call")),
            StatsField("browser", .string(browser ?? "unknown")), StatsField("sfu", .string(sfu ?? "janus")),
            StatsField("interval_ms", .number(intervalMilliseconds)), StatsField("publishers", .array(publishers)),
        ])
        var text = JSONWriter.string(header) + "\n"
        for line in lines { text += line + "\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - Lines

    private func bind(_ stream: CallStream, pc: String, time: Double) {
        let first = state.withLock { $0.boundConnections.insert(pc).inserted }
        guard first else { return }
        // One handle per subscriber: the connection carries this stream only (no `mid`).
        let entry: JSONValue = .object([StatsField("publisher", .string(stream.connection.connectionId)), StatsField("stream", .string(stream.streamId))])
        event(time: time, peer: display, pc: pc, name: "subscriber-streams", data: .object([StatsField("streams", .array([entry]))]))
    }

    private func sample(peer: String, pc: String, report: StatsReport) {
        var line = NDJSONLine(t: report.timestamp ?? Self.now())
        line.string("peer", peer)
        line.string("pc", pc)
        line.json("report", report.jsonArray())
        state.withLock { $0.lines.append(line.line) }
    }

    private func event(time: Double, peer: String, pc: String?, name: String, data: JSONValue) {
        var line = NDJSONLine(t: time)
        line.string("peer", peer)
        if let pc { line.string("pc", pc) }
        line.string("event", name)
        line.value("data", data)
        state.withLock { $0.lines.append(line.line) }
    }

    private static func now() -> Double { (Date().timeIntervalSince1970 * 1000).rounded() }
}
