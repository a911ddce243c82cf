import RTCStats

/// Classifies a peer connection's working candidate pairs into ``ConnectionPaths``, one stats
/// report at a time, as a value.
///
/// A pair works when its `state` is `succeeded` and it is still alive: `responsesReceived` rose
/// since the previous report, or its `lastPacketReceivedTimestamp` / `lastPacketSentTimestamp`
/// is within ``liveness`` of the report's time. `succeeded` alone goes stale: Chromium keeps
/// unused pairs `succeeded` with frozen `responsesReceived` (consent checks run only on the
/// selected pair). A working pair is classified by its local candidate: `relay` over udp →
/// `udpRelay`, over tcp or tls → `tcpRelay`, a direct ICE-TCP candidate → `tcpRelay` too (not
/// direct UDP), anything else → `udpDirect`.
///
/// A pair `in-progress` after it has had responses is one with a ping in flight: libwebrtc sets
/// a working pair back to `in-progress` for each ping until its answer (seen on the rig: the
/// selected pair `in-progress` with 18 responses and a packet 2 ms old, which made the path
/// flap for one sample). It works while it received a packet within ``pingLiveness`` (not sent:
/// a sender keeps sending into a blackout; measured 1.7 s into one, the last packet received
/// 1.73 s before).
///
/// The first report of a pair has no previous counters, so it counts on its timestamps alone.
package struct CandidatePairPathTracker: Sendable {
    /// How recent a pair's last packet must be (against the report's time) to count as alive.
    package let liveness: Double
    /// How recent the last packet received on a pair with a ping in flight must be, ms.
    package let pingLiveness: Double = 1000
    /// The paths after the last report.
    package private(set) var paths: ConnectionPaths = []
    /// Reports without a time stamp: their pairs count on rising responses only.
    package private(set) var reportsWithoutTime = 0
    private var responsesByPair: [String: Double] = [:]

    /// Creates a tracker; `livenessMilliseconds` is how recent a last packet keeps a pair alive.
    package init(livenessMilliseconds: Double = 3000) {
        liveness = livenessMilliseconds
    }

    /// Reads one report; returns the new paths when they differ from the previous ones, else `nil`.
    package mutating func receive(_ report: StatsReport) -> ConnectionPaths? {
        let now = report.timestamp
        if now == nil { reportsWithoutTime += 1 }
        var found: ConnectionPaths = []
        var counters: [String: Double] = [:]
        for pair in report.entries(ofType: .candidatePair) {
            let responses = pair.number("responsesReceived")
            if let responses { counters[pair.id] = responses }
            let state = pair.string("state")
            let pinging = state == "in-progress" && (responses ?? 0) > 0
            guard state == "succeeded" || pinging else { continue }
            let rose = responses.map { value in responsesByPair[pair.id].map { value > $0 } ?? false } ?? false
            let keys = pinging ? ["lastPacketReceivedTimestamp"] : ["lastPacketReceivedTimestamp", "lastPacketSentTimestamp"]
            let window = pinging ? pingLiveness : liveness
            let recent = now.map { time in
                keys.contains { key in pair.number(key).map { abs(time - $0) <= window } ?? false }
            } ?? false
            guard rose || recent else { continue }
            found.insert(Self.classify(localCandidate: pair.string("localCandidateId").flatMap { report[$0] }))
        }
        responsesByPair = counters
        guard found != paths else { return nil }
        paths = found
        return found
    }

    /// Forgets the previous counters and paths (a new peer connection).
    package mutating func reset() {
        responsesByPair = [:]
        paths = []
    }

    /// The path a pair with this local candidate provides. A direct pair over ICE-TCP (a host
    /// or reflexive candidate whose `protocol` is `tcp`) is not `udpDirect`: seed 003's three
    /// paths have no direct TCP, and its TCP path is the one it calls `tcpRelay` (in a routed
    /// call the router relays the media whatever the leg).
    static func classify(localCandidate: StatsEntry?) -> ConnectionPaths {
        guard let local = localCandidate else { return .udpDirect }
        guard local.string("candidateType") == "relay" else {
            return local.string("protocol")?.lowercased() == "tcp" ? .tcpRelay : .udpDirect
        }
        switch local.string("relayProtocol")?.lowercased() {
        case "tcp", "tls": return .tcpRelay
        default: return .udpRelay
        }
    }
}
