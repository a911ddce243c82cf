import CallScopeReplay
import Foundation
import Observability
import RTCStats

// The one place report, analyze and the exports get the engine's output from: the same
// `ReplayDriver` as `callscope replay`.

/// A file replayed through the engine: its timeline (for the raw fields the callbacks do not
/// carry, e.g. RTT and jitter) and every callback, in order.
struct ReplayedCall {
    /// The file as given.
    var file: String
    /// Bytes read (compressed size when gzip).
    var byteCount: Int
    /// The parsed timeline.
    var timeline: StatsTimeline
    /// The engine's callbacks, in order.
    var callbacks: [StatsCallback]
}

/// Reads and replays `file` like `callscope replay` does; throws ``ReplayFileError`` when the
/// file cannot be read at all (damaged lines are in `timeline.problems`).
func replayCallbacks(file: String, senderStats: ReplayCommand.SenderStatsMode = .auto) throws -> ReplayedCall {
    let (timeline, byteCount) = try readTimeline(file: file)
    let callbacks = ReplayDriver.replay(timeline, senderStats: senderStats)
    return ReplayedCall(file: file, byteCount: byteCount, timeline: timeline, callbacks: callbacks)
}

/// Reads `file` as a timeline, with the file's size; throws ``ReplayFileError`` when the file
/// cannot be read at all (damaged lines are in `timeline.problems`).
func readTimeline(file: String) throws -> (timeline: StatsTimeline, byteCount: Int) {
    guard let data = FileManager.default.contents(atPath: file) else {
        throw ReplayFileError(message: "\(file): cannot read the file (does it exist?)")
    }
    let timeline: StatsTimeline
    do {
        timeline = try StatsTimeline.read([UInt8](data))
    } catch {
        throw ReplayFileError(message: "\(file): \(error)")
    }
    return (timeline, data.count)
}
