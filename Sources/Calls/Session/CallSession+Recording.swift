import CallScopeCore
import Foundation
import Observability
import RTCStats

/// What a session fed its stats monitors, in the order it fed them, so a call can be recorded
/// and replayed to the same callbacks (docs/spec/architecture.md, "Replay is a client like any other").
public enum CallStatsRecord: Sendable {
    /// A report of the publishing peer connection, as the publisher's monitor received it.
    case publisherSample(peerConnection: String, report: StatsReport)
    /// A report of a subscriber's peer connection, as the subscriber's monitor received it.
    case subscriberSample(stream: CallStream, peerConnection: String, report: StatsReport)
    /// A sender-stats message a subscriber received over its data channel, with the time (unix
    /// ms) its monitor was given.
    case senderStatsReceived(stream: CallStream, peerConnection: String, message: String, time: Double)
    /// The layer policy gave a subscriber's monitor a new receive limit, decided on the report
    /// of `time` (unix ms, the report's timestamp): it holds from the next report on.
    case receiveLimitChanged(stream: CallStream, peerConnection: String, limit: SubscriberReceiveLimit, time: Double)
}

extension CallSession {
    /// Sets the observer told of every ``CallStatsRecord`` (nil: none). It is called on the
    /// session's executor, just before the monitor gets the same input: keep it short.
    public func setStatsRecorder(_ recorder: (@Sendable (CallStatsRecord) -> Void)?) {
        statsRecorder = recorder
    }

    /// Records the call from now on: every input the session feeds its stats monitors becomes a
    /// line of `writer`, so `callscope replay` (or `ReplayDriver`) on the recording gives the
    /// callbacks the call gave. Write the header first (`RecordingWriter.writeHeader(_:)`).
    ///
    /// Lines: a sample line per report, `peer` being `peer` for the subscribers' connections and
    /// `<peer>.publisher` for the publishing one (separate endpoints, as the session keeps
    /// separate monitors) and `pc` the media engine's peer-connection id; a `sender-stats` line
    /// per message a subscriber received; a `subscriber.receiveLimit` line per limit the layer
    /// policy decided; and, before a subscriber connection's first line, a `subscriber-streams`
    /// line binding it to its stream's publisher. Samples without a timestamp get the session's
    /// wall clock.
    ///
    /// It takes the place of any recorder set before (``setStatsRecorder(_:)`` shares the hook);
    /// ``stopRecording()`` ends it.
    /// - Parameters:
    ///   - writer: Where the lines go.
    ///   - peer: This endpoint's label in the recording.
    public func record(to writer: RecordingWriter, peer: String = "local") {
        let lines = CallStatsLines(writer: writer, peer: peer, wallClock: wallClock)
        statsRecorder = { lines.write($0) }
    }

    /// Stops recording (``record(to:peer:)``) or observing (``setStatsRecorder(_:)``): no more
    /// lines are written.
    public func stopRecording() {
        statsRecorder = nil
    }
}

/// A session's ``CallStatsRecord``s as recording lines (``CallSession/record(to:peer:)``).
final class CallStatsLines: Sendable {
    let writer: RecordingWriter
    let peer: String
    let wallClock: @Sendable () -> Date
    /// The subscriber connections already bound to their stream (`subscriber-streams`).
    private let boundConnections = Locked<Set<String>>([])

    init(writer: RecordingWriter, peer: String, wallClock: @escaping @Sendable () -> Date) {
        self.writer = writer
        self.peer = peer
        self.wallClock = wallClock
    }

    var publisherPeer: String { peer + ".publisher" }

    func write(_ record: CallStatsRecord) {
        switch record {
        case .publisherSample(let pc, let report):
            writer.writeSample(time: report.timestamp ?? now(), peer: publisherPeer, peerConnection: pc, report: report)
        case .subscriberSample(let stream, let pc, let report):
            let time = report.timestamp ?? now()
            bind(stream, pc: pc, time: time)
            writer.writeSample(time: time, peer: peer, peerConnection: pc, report: report)
        case .senderStatsReceived(let stream, let pc, let message, let time):
            bind(stream, pc: pc, time: time)
            writer.writeSenderStats(time: time, peer: peer, peerConnection: pc, message: message)
        case .receiveLimitChanged(let stream, let pc, let limit, let time):
            bind(stream, pc: pc, time: time)
            writer.writeEvent(time: time, peer: peer, peerConnection: pc, name: TimelineEventName.subscriberReceiveLimit,
                              data: .object([StatsField("limit", .string(limit.rawValue)), StatsField("stream", .string(stream.streamId))]))
        }
    }

    /// Before a subscriber connection's first line: which publisher's stream it carries. One
    /// handle per subscriber: the connection carries this stream only (no `mid`).
    private func bind(_ stream: CallStream, pc: String, time: Double) {
        guard boundConnections.withLock({ $0.insert(pc).inserted }) else { return }
        let entry: JSONValue = .object([StatsField("publisher", .string(stream.connection.connectionId)), StatsField("stream", .string(stream.streamId))])
        writer.writeEvent(time: time, peer: peer, peerConnection: pc, name: TimelineEventName.subscriberStreams,
                          data: .object([StatsField("streams", .array([entry]))]))
    }

    private func now() -> Double { (wallClock().timeIntervalSince1970 * 1000).rounded() }
}
