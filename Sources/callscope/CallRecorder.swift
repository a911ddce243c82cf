import Calls
import CallScopeCore
import Foundation
import RTCStats

/// `callscope call --record FILE` (and `--report FILE`, which replays it): a
/// `webrtc-stats-recording` v1 (docs/spec/recording-format.md) written with RTCStats'
/// ``RecordingWriter`` — the session's stats inputs through `CallSession.record(to:peer:)`,
/// this command's lifecycle events through ``lifecycle(_:stream:data:)`` — so `callscope replay
/// FILE` gives the same callbacks. Lines are kept in memory and the recording is made at the end
/// of the call, because the header (line 1) lists the publishers seen during the call; it is
/// written to `path` when there is one.
///
/// Labels: `peer` is the client's display name for its subscribers' connections and
/// `<display>.publisher` for its publishing connection; `pc` is the media engine's
/// peer-connection id.
final class CallRecorder: Sendable {
    /// The `--record` file; `nil` keeps the recording in memory only (for `--report`).
    let path: String?
    let display: String
    /// Where the call's lines go (kept until ``finish(browser:sfu:intervalMilliseconds:)``).
    let writer: RecordingWriter
    private let lines: Locked<[UInt8]>
    private let publishers = Locked(Publishers())

    private struct Publishers {
        var entries: [String: JSONValue] = [:]
        var order: [String] = []
    }

    init(path: String?, display: String) throws {
        if let path {
            guard !path.hasSuffix(".gz") else { throw UsageError("--record writes plain ndjson; give a name not ending in .gz") }
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw UsageError("--record: cannot create \(path)") }
        }
        self.path = path
        self.display = display
        let lines = Locked<[UInt8]>([])
        self.lines = lines
        writer = RecordingWriter { line in lines.withLock { $0 += line } }
    }

    /// A lifecycle event (``TimelineEventName/sessionStreamCreated``, ...), stamped now.
    func lifecycle(_ name: String, stream: String, data: JSONValue) {
        var fields = data.object ?? []
        if !stream.isEmpty { fields.append(StatsField("stream", .string(stream))) }
        writer.writeEvent(time: (Date().timeIntervalSince1970 * 1000).rounded(), peer: display, name: name, data: .object(fields))
    }

    /// Notes a stream of the call for the header's `publishers`.
    func noteStream(_ stream: CallStream, own: Bool) {
        publishers.withLock { publishers in
            let id = stream.connection.connectionId
            // Our own stream also comes as the session's streamCreated, maybe after we noted it as ours.
            if !own, publishers.entries[id]?["own"]?.bool == true { return }
            if publishers.entries[id] == nil { publishers.order.append(id) }
            publishers.entries[id] = .object([
                StatsField("publisher", .string(id)), StatsField("stream", .string(stream.streamId)),
                StatsField("name", stream.name.map(JSONValue.string) ?? .null), StatsField("own", .bool(own)),
            ])
        }
    }

    /// Makes the recording — the header, then every line in the order it was recorded —,
    /// writes it to ``path`` when there is one, and returns it.
    @discardableResult
    func finish(browser: String?, sfu: String?, intervalMilliseconds: Double) throws -> [UInt8] {
        let listed = publishers.withLock { publishers in publishers.order.compactMap { publishers.entries[$0] } }
        let header = Locked<[UInt8]>([])
        RecordingWriter { line in header.withLock { $0 = line } }.writeHeader(RecordingHeader(
            scenario: "callscope-call", browser: browser ?? "unknown", sfu: sfu ?? "janus", intervalMilliseconds: intervalMilliseconds,
            fields: [StatsField("publishers", .array(listed))]))
        let bytes = header.withLock { $0 } + lines.withLock { $0 }
        if let path { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
        return bytes
    }
}
