import RTCStats

/// Reads a friend connection's `getStats()` reports into ``CandidatePairObservation``s for
/// ``FriendPathTracker``, as a value (no clock: `now` is the caller's monotonic time).
///
/// A pair's last response is when it last received a packet: `now` minus the age of its
/// `lastPacketReceivedTimestamp` against the report's time, or `now` when its
/// `responsesReceived` rose since the previous report (a report without time stamps). A pair
/// counts as succeeded when its `state` is `succeeded`, or `in-progress` after it had responses:
/// libwebrtc sets a working pair back to `in-progress` while each ping is in flight.
/// A pair is `selected` when a transport names it (`selectedCandidatePairId`).
/// Candidates missing from the report, unknown candidate types and protocols make no
/// observation (counted in ``unreadablePairs``), never a wrong path.
public struct CandidatePairReader: Sendable {
    private var responsesByPair: [String: Double] = [:]
    /// Pairs skipped because their candidates were missing or unreadable.
    public private(set) var unreadablePairs = 0

    /// A reader with no previous report.
    public init() {}

    /// The pairs of one report, read at monotonic time `now`.
    public mutating func observations(in report: StatsReport, at now: Duration) -> [CandidatePairObservation] {
        let reportTime = report.timestamp
        let selectedIDs = Set(report.entries(ofType: .transport).compactMap(\.selectedCandidatePairID))
        var counters: [String: Double] = [:]
        var observations: [CandidatePairObservation] = []
        for pair in report.entries(ofType: .candidatePair) {
            let responses = pair.number("responsesReceived")
            if let responses { counters[pair.id] = responses }
            guard let local = pair.string("localCandidateId").flatMap({ report[$0] }),
                  let remote = pair.string("remoteCandidateId").flatMap({ report[$0] }),
                  let localType = local.string("candidateType").flatMap(CandidatePairObservation.CandidateType.init(rawValue:)),
                  let remoteType = remote.string("candidateType").flatMap(CandidatePairObservation.CandidateType.init(rawValue:)),
                  let transport = local.string("protocol").flatMap(Self.transport) else {
                unreadablePairs += 1
                continue
            }
            let state = pair.string("state")
            let succeeded = state == "succeeded" || (state == "in-progress" && (responses ?? 0) > 0)
            var lastResponseAt: Duration?
            if let reportTime, let last = pair.number("lastPacketReceivedTimestamp"), last > 0 {
                // A clock step or a time stamp from the future counts as "just now", never as later than now.
                let ageMilliseconds = max(0, reportTime - last)
                lastResponseAt = now - .milliseconds(Int64(min(ageMilliseconds, 86_400_000)))
            }
            if let responses, let previous = responsesByPair[pair.id], responses > previous {
                lastResponseAt = now
            }
            let relayProtocol = localType == .relay ? local.string("relayProtocol").flatMap(Self.transport) : nil
            observations.append(CandidatePairObservation(localType: localType, localRelayProtocol: relayProtocol, remoteType: remoteType,
                                                         transport: transport, succeeded: succeeded, lastResponseAt: lastResponseAt,
                                                         selected: selectedIDs.contains(pair.id)))
        }
        responsesByPair = counters
        return observations
    }

    /// `udp`, `tcp`, and `tls` (a relay reached over TLS, which is TCP underneath).
    private static func transport(_ name: String) -> CandidatePairObservation.TransportProtocol? {
        switch name.lowercased() {
        case "udp": .udp
        case "tcp", "tls": .tcp
        default: nil
        }
    }
}
