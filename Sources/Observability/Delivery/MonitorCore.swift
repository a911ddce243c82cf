import CallScopeCore

/// What every stats monitor shares: the engine and the delegates behind one lock, and one
/// ordered delivery of each input's callbacks, to the delegate first and then to every
/// `events` stream, outside the lock.
final class MonitorCore<Delegate>: Sendable {
    private struct State {
        var engine: CallStatsEngine
        /// Held weakly as `AnyObject` (a class-bound protocol's existential is not itself a class
        /// type a generic can constrain to) and cast back on use.
        weak var delegate: AnyObject?
        weak var reportDelegate: (any RtcStatsReportDelegate)?
    }

    private let state: Locked<State>
    private let fanOut = EventFanOut<StatsCallback>(bufferingNewest: 256)

    init(engine: CallStatsEngine) {
        state = Locked(State(engine: engine))
    }

    var delegate: Delegate? {
        get { state.withLock { $0.delegate as? Delegate } }
        set { state.withLock { $0.delegate = newValue.map { $0 as AnyObject } } }
    }

    var reportDelegate: (any RtcStatsReportDelegate)? {
        get { state.withLock { $0.reportDelegate } }
        set { state.withLock { $0.reportDelegate = newValue } }
    }

    /// A new stream of every later callback.
    func makeStream() -> AsyncStream<StatsCallback> { fanOut.makeStream() }

    /// Runs `body` on the engine under the lock.
    func withEngine<Result>(_ body: (inout CallStatsEngine) -> Result) -> Result {
        state.withLock { body(&$0.engine) }
    }

    /// Runs `body` under the lock, told whether anyone listens (a delegate or a stream), then
    /// delivers the callbacks it returns, in order, through `dispatch` to the delegate and to
    /// every stream, outside the lock; returns them.
    @discardableResult
    func process(_ body: (inout CallStatsEngine, _ listening: Bool) -> [StatsCallback], dispatch: (Delegate, StatsCallback) -> Void) -> [StatsCallback] {
        let streaming = fanOut.isListening
        let (callbacks, delegate) = state.withLock { state -> ([StatsCallback], Delegate?) in
            (body(&state.engine, streaming || state.delegate != nil), state.delegate as? Delegate)
        }
        if let delegate {
            for callback in callbacks { dispatch(delegate, callback) }
        }
        fanOut.yield(callbacks)
        return callbacks
    }
}
