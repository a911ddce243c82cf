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
struct CallEnd {
    /// What ended the wait.
    enum Cause: Equatable { case duration, signal(Int32) }

    private let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let sources: [any DispatchSourceSignal]

    /// Starts catching SIGINT and SIGTERM.
    init() {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        self.signals = signals
        self.continuation = continuation
        sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Waits `seconds`, or for the first signal (at once when one came before the wait).
    func wait(seconds: Double) async -> Cause {
        let signals = signals
        return await withTaskGroup(of: Cause?.self) { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int((min(seconds, 1e9) * 1000).rounded())))
                return Task.isCancelled ? nil : .duration
            }
            group.addTask {
                for await number in signals { return .signal(number) }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .duration
        }
    }

    /// Stops catching (the signals stay ignored).
    func finish() {
        for source in sources { source.cancel() }
        continuation.finish()
    }
}
