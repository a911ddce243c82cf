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
}
