import RTCStats

/// What one report of a peer connection says of the connection itself: whether media arrives
/// (the selected pair's counters) and over which kinds of path.
package struct ConnectionReading: Hashable, Sendable {
    /// The selected pair's received bytes and STUN responses.
    package var progress: SelectedPairProgress
    /// The working paths after this report.
    package var paths: ConnectionPaths
}

/// One peer connection's candidate-pair paths across its reports, started afresh when the
/// reports come from another peer connection (a replaced one).
package struct ConnectionPathWatch: Sendable {
    private var peerConnection: PeerConnectionID?
    private var tracker = CandidatePairPathTracker()

    /// A watch that has seen nothing.
    package init() {}

    /// Reads one report of `peerConnection`.
    package mutating func read(_ report: StatsReport, of peerConnection: PeerConnectionID) -> ConnectionReading {
        if peerConnection != self.peerConnection {
            tracker = CandidatePairPathTracker()
            self.peerConnection = peerConnection
        }
        _ = tracker.receive(report)
        return ConnectionReading(progress: SelectedPairProgress(report), paths: tracker.paths)
    }
}
