import RTCStats

/// Reads a friend connection's `getStats()` reports into ``CandidatePairObservation``s for
/// ``FriendPathTracker``, as a value (no clock: `now` is the caller's monotonic time).
///
/// A pair's last response is the later of two times: `now` minus the age of its
/// `lastPacketReceivedTimestamp` against the report's time, and the read at which its
/// `responsesReceived` last rose (remembered from read to read). Chromium stamps only data
/// packets: a pair that carries no data, such as a relay pair checked while ICE moves to it,
/// shows its answers only in the rising counter, and an answer seen at one read stays evidence at
/// the next ones rather than for one read only. A pair counts as succeeded when its `state` is
/// `succeeded`, or `in-progress` after it had responses: libwebrtc sets a working pair back to
/// `in-progress` while each ping is in flight. Its unanswered checks are those sent before the
/// previous read and not answered since (at the first read, its `requestsSent` beyond its
/// `responsesReceived`): a check still in flight when the stats are read is no failure.
/// A pair is `selected` when a transport names it (`selectedCandidatePairId`).
/// Candidates missing from the report, unknown candidate types and protocols make no
/// observation (counted in ``unreadablePairs``), never a wrong path.
public struct CandidatePairReader: Sendable {
    /// What the reader remembers of one pair between reads.
    private struct PairHistory: Sendable {
        var responses: Double
        var lastRiseAt: Duration?
        /// `requestsSent` up to which the checks count as answered.
        var answeredThrough: Double
        /// `requestsSent` at the previous read.
        var requestsAtLastRead: Double
        /// Checks sent before the previous read and still unanswered.
        var unanswered: Int
    }

    private var history: [String: PairHistory] = [:]
    /// Pairs skipped because their candidates were missing or unreadable.
    public private(set) var unreadablePairs = 0

    /// A reader with no previous report.
    public init() {}

    /// The pairs of one report, read at monotonic time `now`.
    public mutating func observations(in report: StatsReport, at now: Duration) -> [CandidatePairObservation] {
        let reportTime = report.timestamp
        let selectedIDs = Set(report.entries(ofType: .transport).compactMap(\.selectedCandidatePairID))
        var seen: [String: PairHistory] = [:]
        var observations: [CandidatePairObservation] = []
        for pair in report.entries(ofType: .candidatePair) {
            let responses = pair.number("responsesReceived")
            let requests = pair.number("requestsSent")
            let pairHistory = Self.update(history[pair.id], responses: responses, requests: requests, at: now)
            if let pairHistory { seen[pair.id] = pairHistory }
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
            if let rise = pairHistory?.lastRiseAt, lastResponseAt.map({ rise > $0 }) ?? true {
                lastResponseAt = rise
            }
            let unanswered = requests == nil ? 0 : pairHistory?.unanswered ?? 0
            let relayProtocol = localType == .relay ? local.string("relayProtocol").flatMap(Self.transport) : nil
            observations.append(CandidatePairObservation(localType: localType, localRelayProtocol: relayProtocol, remoteType: remoteType,
                                                         transport: transport, succeeded: succeeded, lastResponseAt: lastResponseAt,
                                                         selected: selectedIDs.contains(pair.id), unansweredChecks: unanswered))
        }
        // Pairs gone from the report are forgotten (an ICE restart replaces them all).
        history = seen
        return observations
    }

    /// A pair's history after this read. A rise of its responses is an answer at `now` that
    /// answers the checks sent before the previous read; a check counts as unanswered only once
    /// a read has passed since it was sent (one in flight at a read is no failure). At the first
    /// read, its checks beyond its responses count as unanswered. Counters that went down (a
    /// reset) start the history over, with no answer.
    private static func update(_ previous: PairHistory?, responses: Double?, requests: Double?, at now: Duration) -> PairHistory? {
        guard let responses else { return nil }
        let requestsNow = requests ?? 0
        guard let previous, responses >= previous.responses, requestsNow >= previous.requestsAtLastRead else {
            let answered = min(requestsNow, responses)
            return PairHistory(responses: responses, lastRiseAt: nil, answeredThrough: answered, requestsAtLastRead: requestsNow,
                               unanswered: count(requestsNow - answered))
        }
        var next = previous
        next.responses = responses
        if responses > previous.responses {
            next.lastRiseAt = now
            next.answeredThrough = max(previous.answeredThrough, previous.requestsAtLastRead)
        }
        next.unanswered = count(previous.requestsAtLastRead - next.answeredThrough)
        next.requestsAtLastRead = requestsNow
        return next
    }

    private static func count(_ checks: Double) -> Int { Int(min(max(0, checks), 1_000_000)) }

    /// `udp`, `tcp`, and `tls` (a relay reached over TLS, which is TCP underneath).
    private static func transport(_ name: String) -> CandidatePairObservation.TransportProtocol? {
        switch name.lowercased() {
        case "udp": .udp
        case "tcp", "tls": .tcp
        default: nil
        }
    }
}
