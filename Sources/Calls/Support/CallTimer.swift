/// The clock the call objects sleep on, type-erased: `ContinuousClock` in an app,
/// `ManualClock` (CallScopeTesting) in tests. Calls never reads a clock of its own.
struct CallTimer: Sendable {
    private let sleeper: @Sendable (Duration) async throws -> Void
    private let reader: @Sendable () -> Duration

    /// Wraps `clock`; ``elapsed`` counts from now.
    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        sleeper = { deadline in try await clock.sleep(until: start.advanced(by: deadline), tolerance: nil) }
        reader = { start.duration(to: clock.now) }
    }

    /// Sleeps until ``elapsed`` reaches `deadline` (absolute, so a late start does not drift).
    func sleep(untilElapsed deadline: Duration) async throws { try await sleeper(deadline) }

    /// Time since the timer was made, on the clock.
    var elapsed: Duration { reader() }
}
