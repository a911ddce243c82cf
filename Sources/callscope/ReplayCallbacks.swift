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

/// Replays a recording held in memory (`callscope call --report`: the call's own recording)
/// like ``replayCallbacks(file:senderStats:)`` replays a file; `name` stands for the file.
func replayCallbacks(recording bytes: [UInt8], name: String) throws -> ReplayedCall {
    let timeline = try parseTimeline(bytes, name: name)
    return ReplayedCall(file: name, byteCount: bytes.count, timeline: timeline, callbacks: ReplayDriver.replay(timeline))
}

/// Reads `file` as a timeline, with the file's size; throws ``ReplayFileError`` when the file
/// cannot be read at all (damaged lines are in `timeline.problems`).
func readTimeline(file: String) throws -> (timeline: StatsTimeline, byteCount: Int) {
    guard let data = FileManager.default.contents(atPath: file) else {
        throw ReplayFileError(message: "\(file): cannot read the file (does it exist?)")
    }
    return (try parseTimeline([UInt8](data), name: file), data.count)
}

private func parseTimeline(_ bytes: [UInt8], name: String) throws -> StatsTimeline {
    do {
        return try StatsTimeline.read(bytes)
    } catch {
        throw ReplayFileError(message: "\(name): \(error)")
    }
}
