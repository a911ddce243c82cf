import CallScopeCore
import Calls

/// Every event a signalling yields, recorded in order from the moment it is made until it goes
/// (the tests read it last at their end, which keeps it until then).
final class RecordedSignalingEvents: Sendable {
    private let events = Locked<[SignalingEvent]>([])
    private let reader: Task<Void, Never>

    init(_ stream: AsyncStream<SignalingEvent>) {
        let events = events
        reader = Task { for await event in stream { events.withLock { $0.append(event) } } }
    }

    deinit { reader.cancel() }

    /// Reads (or edits) the events so far under the lock.
    func withLock<Result>(_ body: (inout [SignalingEvent]) throws -> Result) rethrows -> Result {
        try events.withLock(body)
    }
}
