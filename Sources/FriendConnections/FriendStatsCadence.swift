/// When to read a friend connection's stats again, as a value (no clock).
///
/// Normally every ``interval`` (with the keepalive). While the selected pair has been silent for
/// between ``fastReadsFrom`` and ``fastReadsUntil``, every ``fastInterval``: in that time the
/// selected pair's liveness (2 s) runs out, and libwebrtc, whose selected pair stops counting as
/// receiving after 2.5 s of silence, checks the other pairs and moves to one that answers (all
/// UDP dropped: the TCP relay, which it never checked before, pruned behind the UDP pair). The
/// first answer on the new pair is then seen within ``fastInterval`` instead of up to
/// ``interval`` later. Before that window a pair is not silent (each side sends a keepalive every
/// ``interval``, so a working pair is never silent for two); after it, ICE has moved or the
/// paths are empty, and a connection that stays silent costs no more reads than usual.
package struct FriendStatsCadence: Hashable, Sendable {
    /// Between two reads normally.
    package var interval: Duration
    /// Between two reads while the selected pair is silent.
    package var fastInterval: Duration
    /// The selected pair's silence from which reads come every ``fastInterval``.
    package var fastReadsFrom: Duration
    /// The selected pair's silence from which they come every ``interval`` again.
    package var fastReadsUntil: Duration

    /// A cadence for keepalives every `interval`: fast reads every 100 ms from two intervals of
    /// silence until 4 s (libwebrtc's 2.5 s, its checks of the other pairs, about 0.4 s, and a
    /// margin).
    package init(interval: Duration, fastInterval: Duration = .milliseconds(100), fastReadsUntil: Duration = .seconds(4)) {
        self.interval = interval
        self.fastInterval = min(fastInterval, interval)
        fastReadsFrom = interval * 2
        self.fastReadsUntil = fastReadsUntil
    }

    /// The delay before the next read, after a read at `now` that gave `pairs`. A connection
    /// with no selected pair, or one that never received a packet, is read at the normal pace.
    package func delay(after pairs: [CandidatePairObservation], at now: Duration) -> Duration {
        guard let selected = pairs.first(where: \.selected), let last = selected.lastResponseAt else { return interval }
        let silence = now - last
        return silence >= fastReadsFrom && silence < fastReadsUntil ? fastInterval : interval
    }
}
