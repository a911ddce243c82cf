/// When a friend connection whose selected pair fell silent restarts ICE, as a value (no clock).
///
/// libwebrtc looks for another pair only 2.5 s after the selected one stopped receiving, and on
/// a connection older than 10 s it has none left to move to: the pairs it pruned unchecked
/// behind the selected one (the TCP relay behind a UDP pair) are gone by then. An ICE restart
/// makes and checks every pair anew (the TCP relay answered 0.5-1.8 s after one started).
///
/// Each side sends a keepalive every stats interval, so a working pair is never silent for
/// ``silence`` (three intervals). The restart also waits for a check on the pair to go
/// unanswered: a friend with many connections sends its keepalives less often (a poll round of
/// 200 connections takes 2 s over WebDriver), while its pairs still answer libwebrtc's checks.
///
/// One restart per silence: while the selected pair stays silent (a blackout) there is no other
/// until a read finds it answering again; the stream's return and ICE's `disconnected` have
/// their own restarts. A silence is not told apart by its last answer's time, which is read
/// from the report's clock and moves by a few milliseconds from read to read.
package struct SilentPairRestart: Hashable, Sendable {
    /// How long the selected pair is silent before the restart.
    package let silence: Duration
    /// A restart was made for the present silence.
    private var restartedInThisSilence = false

    /// A restart after three keepalive `interval`s of silence.
    package init(interval: Duration) {
        silence = interval * 3
    }

    /// Whether to restart now, after a read at `now` that gave `pairs`; a `true` counts as done.
    package mutating func restartNow(after pairs: [CandidatePairObservation], at now: Duration) -> Bool {
        guard let selected = pairs.first(where: \.selected), let last = selected.lastResponseAt else { return false }
        guard now - last >= silence, selected.unansweredChecks > 0 else {
            restartedInThisSilence = false
            return false
        }
        guard !restartedInThisSilence else { return false }
        restartedInThisSilence = true
        return true
    }
}
