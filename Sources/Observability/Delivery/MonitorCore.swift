import Foundation

/// What every stats monitor shares: the engine and the delegates behind one lock, and one
/// ordered delivery of each input's callbacks, to the delegate first and then to every
/// `events` stream, outside the lock.
final class MonitorCore<Delegate>: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; delegates and streams are called
    // after the lock is released.
    private let lock = NSLock()
    private var engine: CallStatsEngine
    /// Held weakly as `AnyObject` (a class-bound protocol's existential is not itself a class
    /// type a generic can constrain to) and cast back on use.
    private weak var storedDelegate: AnyObject?
    private weak var storedReportDelegate: (any RtcStatsReportDelegate)?
    private let fanOut = CallbackFanOut()

    init(engine: CallStatsEngine) {
        self.engine = engine
    }

    var delegate: Delegate? {
        get { lock.withLock { storedDelegate as? Delegate } }
        set { lock.withLock { storedDelegate = newValue.map { $0 as AnyObject } } }
    }

    var reportDelegate: (any RtcStatsReportDelegate)? {
        get { lock.withLock { storedReportDelegate } }
        set { lock.withLock { storedReportDelegate = newValue } }
    }

    /// A new stream of every later callback.
    func makeStream() -> AsyncStream<StatsCallback> { fanOut.makeStream() }

    /// Runs `body` on the engine under the lock.
    func withEngine<Result>(_ body: (inout CallStatsEngine) -> Result) -> Result {
        lock.withLock { body(&engine) }
    }

    /// Runs `body` under the lock, told whether anyone listens (a delegate or a stream), then
    /// delivers the callbacks it returns, in order, through `dispatch` to the delegate and to
    /// every stream, outside the lock; returns them.
    @discardableResult
    func process(_ body: (inout CallStatsEngine, _ listening: Bool) -> [StatsCallback], dispatch: (Delegate, StatsCallback) -> Void) -> [StatsCallback] {
        let streaming = fanOut.isListening
        let (callbacks, delegate) = lock.withLock { () -> ([StatsCallback], Delegate?) in
            (body(&engine, streaming || storedDelegate != nil), storedDelegate as? Delegate)
        }
        if let delegate {
            for callback in callbacks { dispatch(delegate, callback) }
        }
        fanOut.yield(callbacks)
        return callbacks
    }
}
