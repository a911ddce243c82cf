import Calls
import CallScopeCore
import Foundation
import Observability
import RTCStats

/// Prints `callscope call`'s lines, one writer for every source: session and subscriber
/// lifecycle events (`t` in unix ms) and stats callbacks (the replay interface's lines; in
/// text, their values as `replay` prints them, with the summary and timeline at the end).
final class CallEventPrinter: Sendable {
    let format: CallCommand.Format
    private let lock = Locked(())
    private let followers = Locked<[Task<Void, Never>]>([])
    /// The text form of the stats callbacks; its timeline counts from the printer's creation.
    private let text: Locked<CallbackTextPrinter>
    /// Where the text goes (standard output; a test collects it).
    private let output: @Sendable (String) -> Void

    /// Also writes the lifecycle events to `callscope call --record`'s file, when recording.
    let recorder: CallRecorder?
    /// Also feeds the stats callbacks to `--metrics-port`/`--push`/`--otlp`, when asked for.
    let metrics: CallLiveMetrics?
    /// Also tallies the stats callbacks for `callscope probe`'s summary line, when probing.
    let outcome: Locked<CallOutcome>?

    init(format: CallCommand.Format, recorder: CallRecorder? = nil, metrics: CallLiveMetrics? = nil, outcome: Locked<CallOutcome>? = nil,
         start: Double = Date().timeIntervalSince1970 * 1000,
         output: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }) {
        self.format = format
        self.recorder = recorder
        self.metrics = metrics
        self.outcome = outcome
        self.output = output
        text = Locked(CallbackTextPrinter(clockStyle: .wallClock, origin: start))
    }

    /// A session event.
    func session(_ event: CallSessionEvent) {
        switch event {
        case .didConnect(let connection):
            line(callback: TimelineEventName.sessionDidConnect, peer: "session", stream: "", data: .object([StatsField("connectionId", .string(connection.connectionId))]))
        case .streamCreated(let stream):
            recorder?.noteStream(stream, own: false)
            line(callback: TimelineEventName.sessionStreamCreated, peer: "session", stream: stream.streamId, data: Self.json(stream))
        case .streamDestroyed(let stream, let reason):
            line(callback: TimelineEventName.sessionStreamDestroyed, peer: "session", stream: stream.streamId,
                 data: .object([StatsField("reason", .string(reason.rawValue))]))
        case .connectionCreated(let connection):
            line(callback: TimelineEventName.sessionConnectionCreated, peer: "session", stream: "", data: Self.json(connection))
        case .connectionDestroyed(let connection):
            line(callback: TimelineEventName.sessionConnectionDestroyed, peer: "session", stream: "", data: Self.json(connection))
        case .didDisconnect:
            line(callback: TimelineEventName.sessionDidDisconnect, peer: "session", stream: "", data: .object([]))
        case .didFail(let error):
            line(callback: TimelineEventName.sessionDidFail, peer: "session", stream: "", data: .object([StatsField("error", .string(error.description))]))
        case .streamVideoDimensionsChanged(let stream):
            line(callback: TimelineEventName.sessionStreamVideoDimensionsChanged, peer: "session", stream: stream.streamId,
                 data: .object([StatsField("width", stream.videoDimensions.map { .number(Double($0.width)) } ?? .null),
                                StatsField("height", stream.videoDimensions.map { .number(Double($0.height)) } ?? .null)]))
        case .streamPropertiesChanged(let stream):
            line(callback: "session.streamPropertiesChanged", peer: "session", stream: stream.streamId, data: Self.json(stream))
        case .participantDidConnect, .participantDidDisconnect, .participantPathsChanged,
             .participantConnectionQualityChanged, .connectionStateChanged:
            connectionLine(event)
        }
    }

    /// Prints a subscriber's lifecycle events and stats callbacks as they come.
    func follow(_ subscriber: CallSubscriber) {
        let lifecycle = subscriber.events, stats = subscriber.statsMonitor.events
        let streamID = subscriber.stream.streamId
        add(Task {
            for await event in lifecycle {
                switch event {
                case .didConnect: self.line(callback: TimelineEventName.subscriberDidConnect, peer: "subscriber", stream: streamID, data: .object([]))
                case .didDisconnect: self.line(callback: TimelineEventName.subscriberDidDisconnect, peer: "subscriber", stream: streamID, data: .object([]))
                case .didReconnect: self.line(callback: TimelineEventName.subscriberDidReconnect, peer: "subscriber", stream: streamID, data: .object([]))
                case .didFail(let error):
                    self.line(callback: TimelineEventName.subscriberDidFail, peer: "subscriber", stream: streamID, data: .object([StatsField("error", .string(error.description))]))
                case .videoDisableWarning, .videoDisableWarningLifted, .videoDisabled, .videoEnabled, .layerChanged:
                    self.adaptationLine(event, subscriber: subscriber)
                }
            }
        })
        add(Task { for await callback in stats { self.stats(callback, stream: streamID) } })
    }

    /// Prints a publisher's lifecycle events and stats callbacks as they come.
    func follow(_ publisher: CallPublisher) {
        let lifecycle = publisher.events, stats = publisher.statsMonitor.events
        add(Task {
            for await event in lifecycle {
                switch event {
                case .didConnect(let stream): self.line(callback: TimelineEventName.publisherDidConnect, peer: "publisher", stream: stream.streamId, data: .object([]))
                case .didDisconnect(let stream): self.line(callback: TimelineEventName.publisherDidDisconnect, peer: "publisher", stream: stream.streamId, data: .object([]))
                case .didReconnect(let stream): self.line(callback: TimelineEventName.publisherDidReconnect, peer: "publisher", stream: stream.streamId, data: .object([]))
                case .streamDestroyed(let stream, let reason):
                    self.line(callback: TimelineEventName.publisherStreamDestroyed, peer: "publisher", stream: stream.streamId,
                              data: .object([StatsField("reason", .string(reason.rawValue))]))
                case .didFail(let error):
                    self.line(callback: TimelineEventName.publisherDidFail, peer: "publisher", stream: "", data: .object([StatsField("error", .string(error.description))]))
                }
            }
        })
        add(Task { for await callback in stats { self.stats(callback, stream: "") } })
    }

    func failure(_ what: String, _ error: any Error) {
        FileHandle.standardError.write(Data("callscope: \(what): \(error)\n".utf8))
    }

    /// Stops following; in text, ends with the call's span (to `end`, unix ms), the summary per
    /// stream and the timeline of degradations (as `replay` ends).
    func finish(at end: Double = Date().timeIntervalSince1970 * 1000) async {
        let tasks = followers.withLock { $0 }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        guard format == .text else { return }
        text.withLock { printer in
            let start = printer.origin ?? end
            let span = "\nCall: \(Self.clock(start))–\(Self.clock(end)) (\(CallbackTextPrinter.clock((end - start) / 1000))); the timeline counts from its start"
            write(([span] + printer.summaryLines()).joined(separator: "\n"))
        }
    }

    private func add(_ task: Task<Void, Never>) { followers.withLock { $0.append(task) } }

    /// A stats callback: the replay interface's line, or in text its values (``CallbackTextPrinter``).
    func stats(_ callback: StatsCallback, stream: String) {
        var callback = callback
        if (callback.stream ?? .sole) == .sole { callback.stream = StreamID(stream) }
        metrics?.ingest(callback)
        outcome?.withLock { $0.ingest(callback) }
        switch format {
        case .ndjson: write(callback.ndjsonLine)
        case .text:
            text.withLock { printer in
                let lines = printer.lines(for: callback)
                if !lines.isEmpty { write(lines.joined(separator: "\n")) }
            }
        }
    }

    /// One lifecycle line.
    func line(callback: String, peer: String, stream: String, data: JSONValue) {
        recorder?.lifecycle(callback, stream: stream, data: data)
        let now = Date().timeIntervalSince1970 * 1000
        switch format {
        case .ndjson:
            var line = NDJSONLine(t: now.rounded())
            line.string("peer", peer)
            line.string("pc", "")
            line.string("stream", stream)
            line.string("callback", callback)
            line.value("data", data)
            write(line.line)
        case .text:
            write("\(Self.clock(now)) \(callback) \(stream) \(JSONWriter.string(data))")
        }
    }

    private func write(_ text: String) {
        lock.withLock { _ in output(text + "\n") }
    }

    static func clock(_ unixMilliseconds: Double) -> String {
        let seconds = Int(unixMilliseconds / 1000) % 86_400
        let millis = Int(unixMilliseconds.truncatingRemainder(dividingBy: 1000))
        return String(format: "%02d:%02d:%02d.%03d", seconds / 3600, seconds / 60 % 60, seconds % 60, millis)
    }

    static func json(_ stream: CallStream) -> JSONValue {
        .object([
            StatsField("streamId", .string(stream.streamId)), StatsField("connectionId", .string(stream.connection.connectionId)),
            StatsField("name", stream.name.map(JSONValue.string) ?? .null), StatsField("hasAudio", .bool(stream.hasAudio)),
            StatsField("hasVideo", .bool(stream.hasVideo)), StatsField("videoType", .string(stream.videoType.rawValue)),
            StatsField("creationTime", .number((stream.creationTime.timeIntervalSince1970 * 1000).rounded())),
        ])
    }

    static func json(_ connection: CallConnection) -> JSONValue {
        .object([StatsField("connectionId", .string(connection.connectionId)), StatsField("data", connection.data.map(JSONValue.string) ?? .null)])
    }
}
