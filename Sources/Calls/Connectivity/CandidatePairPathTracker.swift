import RTCStats

/// Classifies a peer connection's working candidate pairs into ``ConnectionPaths``, one stats
/// report at a time, as a value.
///
/// A pair works when its `state` is `succeeded` and it is still alive: `responsesReceived` rose
/// since the previous report, or its `lastPacketReceivedTimestamp` / `lastPacketSentTimestamp`
/// is within ``liveness`` of the report's time. `succeeded` alone goes stale: Chromium keeps
/// unused pairs `succeeded` with frozen `responsesReceived` (consent checks run only on the
/// selected pair). A working pair is classified by its local candidate: `relay` over udp →
/// `udpRelay`, over tcp or tls → `tcpRelay`, anything else → `udpDirect`.
///
/// The first report of a pair has no previous counters, so it counts on its timestamps alone.
public struct CandidatePairPathTracker: Sendable {
    /// How recent a pair's last packet must be (against the report's time) to count as alive.
    public let liveness: Double
    /// The paths after the last report.
    public private(set) var paths: ConnectionPaths = []
    /// Reports without a time stamp: their pairs count on rising responses only.
    public private(set) var reportsWithoutTime = 0
    private var responsesByPair: [String: Double] = [:]

    /// Creates a tracker; `livenessMilliseconds` is how recent a last packet keeps a pair alive.
    public init(livenessMilliseconds: Double = 3000) {
        liveness = livenessMilliseconds
    }

    /// Reads one report; returns the new paths when they differ from the previous ones, else `nil`.
    public mutating func receive(_ report: StatsReport) -> ConnectionPaths? {
        let now = report.timestamp
        if now == nil { reportsWithoutTime += 1 }
        var found: ConnectionPaths = []
        var counters: [String: Double] = [:]
        for pair in report.entries(ofType: .candidatePair) {
            let responses = pair.number("responsesReceived")
            if let responses { counters[pair.id] = responses }
            guard pair.string("state") == "succeeded" else { continue }
            let rose = responses.map { value in responsesByPair[pair.id].map { value > $0 } ?? false } ?? false
            let recent = now.map { time in
                ["lastPacketReceivedTimestamp", "lastPacketSentTimestamp"].contains { key in
                    pair.number(key).map { abs(time - $0) <= liveness } ?? false
                }
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
    public mutating func reset() {
        responsesByPair = [:]
        paths = []
    }

    /// The path a pair with this local candidate provides.
    static func classify(localCandidate: StatsEntry?) -> ConnectionPaths {
        guard let local = localCandidate, local.string("candidateType") == "relay" else { return .udpDirect }
        switch local.string("relayProtocol")?.lowercased() {
        case "tcp", "tls": return .tcpRelay
        default: return .udpRelay
        }
    }
}
