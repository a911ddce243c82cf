import CallScopeCore
import Dispatch
import Foundation

/// When `callscope call` hangs up: after `--duration` seconds, or at the first SIGINT or
/// SIGTERM, whichever comes first. Either way the call then leaves the room and writes its
/// `--record` file, so a caller (the rig) can end a call at a moment it picks.
///
/// The signals are caught from the moment it is made, before the call starts: one that comes
/// while Chromium starts, or while the session connects and publishes, is kept, and the call
/// ends as soon as that start-up is over, as cleanly. From then on SIGINT and SIGTERM no longer
/// kill the process, and they stay ignored after ``finish()``, so a second signal cannot cut
/// the hang-up and the recording short (SIGKILL still does).
struct CallEnd: Sendable {
    /// What ended the wait.
    enum Cause: Equatable { case duration, signal(Int32) }

    private let latch = SignalLatch()
    /// Dispatch sources are thread-safe objects; after `init` only `cancel()` is called on them.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    /// Starts catching `signals` (SIGINT and SIGTERM; a test passes none and calls ``fire(_:)``).
    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        let latch = latch
        sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { latch.fire(number) }
            source.resume()
            return source
        }
    }

    /// Waits `seconds`, or for the first signal (at once when one came before the wait). Can be
    /// called again and again (`callscope probe` waits once per call and between calls): the
    /// first signal ends every wait from then on.
    func wait(seconds: Double) async -> Cause {
        let latch = latch
        return await withTaskGroup(of: Cause?.self) { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int((min(seconds, 1e9) * 1000).rounded())))
                return Task.isCancelled ? nil : .duration
            }
            group.addTask { await latch.next().map(Cause.signal) }
            var cause = Cause.duration
            while let result = await group.next() {
                if let result {
                    cause = result
                    break
                }
            }
            group.cancelAll()
            return cause
        }
    }

    /// As if `number` had been received (tests).
    func fire(_ number: Int32) { latch.fire(number) }

    /// Stops catching (the signals stay ignored).
    func finish() {
        for source in sources { source.cancel() }
    }
}

/// The first signal, kept: every wait from then on returns it at once. Waiters are cancellable
/// one by one (an `AsyncStream` would not do: cancelling the task that iterates it finishes the
/// stream, and the next wait would then end at once, without a signal).
private final class SignalLatch: Sendable {
    private struct State {
        var signal: Int32?
        var waiters: [UInt64: CheckedContinuation<Int32?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    func fire(_ number: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32?, Never>] in
            if state.signal == nil { state.signal = number }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: number) }
    }

    /// The signal, when one came; `nil` when the waiting task is cancelled first.
    func next() async -> Int32? {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                let now: Int32?? = state.withLock { state in
                    if let signal = state.signal { return .some(signal) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }
}
