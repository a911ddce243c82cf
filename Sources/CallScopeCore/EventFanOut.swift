/// The `AsyncStream`s of one object: each ``makeStream()`` makes a stream; events are yielded to
/// all of them in order, from one list per input. The one delivery helper of every object that
/// has streams (a call's session, publishers and subscribers; the stats monitors).
package final class EventFanOut<Event: Sendable>: Sendable {
    private let continuations = Locked<[Int: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Locked<Int>(0)
    private let bufferingNewest: Int

    /// A fan-out whose streams each keep the newest `bufferingNewest` events for a slow reader.
    package init(bufferingNewest: Int = 1024) {
        self.bufferingNewest = bufferingNewest
    }

    /// Whether any stream is listening.
    package var isListening: Bool { continuations.withLock { !$0.isEmpty } }

    /// A new stream of every later event.
    package func makeStream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(bufferingNewest))
        let id = nextID.withLock { next -> Int in
            next += 1
            return next
        }
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields `events`, in order, to every stream.
    package func yield(_ events: [Event]) {
        guard !events.isEmpty else { return }
        let targets = continuations.withLock { Array($0.values) }
        for event in events {
            for continuation in targets { continuation.yield(event) }
        }
    }

    /// Finishes every stream.
    package func finish() {
        let targets = continuations.withLock { state in
            defer { state.removeAll() }
            return Array(state.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
