import Dispatch
import Foundation

/// When `callscope call` hangs up: after `--duration` seconds, or at the first SIGINT or
/// SIGTERM, whichever comes first. Either way the call then leaves the room and writes its
/// `--record` file, so a caller (the rig) can end a call at a moment it picks.
enum CallEnd {
    /// What ended the wait.
    enum Cause: Equatable { case duration, signal(Int32) }

    /// Waits for the end. From the start of the wait SIGINT and SIGTERM no longer kill the
    /// process, and they stay ignored afterwards, so a second signal cannot cut the hang-up and
    /// the recording short (SIGKILL still does).
    static func wait(seconds: Double) async -> Cause {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            continuation.finish()
        }
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
}
