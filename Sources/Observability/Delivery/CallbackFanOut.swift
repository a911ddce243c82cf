import Foundation

/// The `AsyncStream`s of one monitor: each `events` access makes a stream; callbacks are yielded
/// to all of them in order.
final class CallbackFanOut: @unchecked Sendable {
    // @unchecked: `continuations` is only touched under `lock`.
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<StatsCallback>.Continuation] = [:]

    /// Whether any stream is listening.
    var isListening: Bool { lock.withLock { !continuations.isEmpty } }

    /// A new stream of every later callback.
    func makeStream() -> AsyncStream<StatsCallback> {
        let (stream, continuation) = AsyncStream<StatsCallback>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields `callbacks`, in order, to every stream.
    func yield(_ callbacks: [StatsCallback]) {
        guard !callbacks.isEmpty else { return }
        let targets = lock.withLock { Array(continuations.values) }
        for callback in callbacks {
            for continuation in targets { continuation.yield(callback) }
        }
    }
}
