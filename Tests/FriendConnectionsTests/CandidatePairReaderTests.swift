import FriendConnections
import RTCStats
import Testing
import XMPP

/// The stats reader as tables: hand-written reports in the shape Chromium's `getStats()` gives
/// (candidate-pair with its local and remote candidate), read into observations; and the
/// initiator rule.
@Suite struct CandidatePairReaderTests {
    /// One report at `time` ms with one pair whose local candidate is `local` (type, protocol,
    /// relayProtocol) and remote `remote`.
    static func report(time: Double = 10_000, local: (String, String, String?), remote: String = "host",
                       state: String = "succeeded", lastPacket: Double? = 9_500, responses: Double? = 3, requests: Double? = nil) -> StatsReport {
        var pair = #"{"id":"CP1","type":"candidate-pair","timestamp":\#(time),"localCandidateId":"L1","remoteCandidateId":"R1","state":"\#(state)""#
        if let lastPacket { pair += #","lastPacketReceivedTimestamp":\#(lastPacket)"# }
        if let responses { pair += #","responsesReceived":\#(responses)"# }
        if let requests { pair += #","requestsSent":\#(requests)"# }
        pair += "}"
        var localEntry = #"{"id":"L1","type":"local-candidate","timestamp":\#(time),"candidateType":"\#(local.0)","protocol":"\#(local.1)""#
        if let relay = local.2 { localEntry += #","relayProtocol":"\#(relay)""# }
        localEntry += "}"
        let remoteEntry = #"{"id":"R1","type":"remote-candidate","timestamp":\#(time),"candidateType":"\#(remote)","protocol":"udp"}"#
        return try! StatsReport(json: Array("[\(pair),\(localEntry),\(remoteEntry)]".utf8))
    }

    /// (local candidate, remote type, the path the observation classifies as).
    static let classification: [((String, String, String?), String, FriendConnectionPaths)] = [
        (("host", "udp", nil), "host", .udpDirect),
        (("srflx", "udp", nil), "prflx", .udpDirect),
        (("relay", "udp", "udp"), "host", .udpRelay),
        (("relay", "udp", "tcp"), "host", .tcpRelay),
        (("relay", "udp", "tls"), "relay", .tcpRelay),
        (("host", "udp", nil), "relay", .udpRelay),
        (("host", "tcp", nil), "host", []),
    ]

    @Test(arguments: classification.indices)
    func readsCandidateTypesAndProtocols(_ index: Int) {
        let (local, remote, path) = Self.classification[index]
        var reader = CandidatePairReader()
        let observations = reader.observations(in: Self.report(local: local, remote: remote), at: .seconds(100))
        #expect(observations.count == 1)
        #expect(observations.first?.path == path)
        #expect(observations.first?.succeeded == true)
    }

    /// The last packet 500 ms before the report's time: the last response 500 ms before `now`.
    @Test func lastResponseFromTheLastPacketsAge() {
        var reader = CandidatePairReader()
        let observation = reader.observations(in: Self.report(local: ("host", "udp", nil)), at: .seconds(100)).first
        #expect(observation?.lastResponseAt == .seconds(100) - .milliseconds(500))
    }

    /// No packet time stamp: responses rising between two reports make the second one "now";
    /// the first report has nothing to compare with.
    @Test func lastResponseFromRisingResponses() {
        var reader = CandidatePairReader()
        let first = reader.observations(in: Self.report(local: ("host", "udp", nil), lastPacket: nil, responses: 3), at: .seconds(1)).first
        #expect(first?.lastResponseAt == nil)
        let same = reader.observations(in: Self.report(local: ("host", "udp", nil), lastPacket: nil, responses: 3), at: .seconds(2)).first
        #expect(same?.lastResponseAt == nil)
        let rose = reader.observations(in: Self.report(local: ("host", "udp", nil), lastPacket: nil, responses: 4), at: .seconds(3)).first
        #expect(rose?.lastResponseAt == .seconds(3))
    }

    /// A rise is remembered: a pair that carries no data (no packet time stamp), answered once
    /// between two reads, stays answered at that read's time at the next reads, and a later
    /// packet time stamp wins over an older rise. (Measured: Bob's TCP relay pair, checked while
    /// ICE moved to it, had no packet time stamp and its answers came about 1 s apart.)
    @Test func aRiseIsRememberedUntilANewerAnswer() {
        let relay = ("relay", "udp", "tcp")
        var reader = CandidatePairReader()
        _ = reader.observations(in: Self.report(time: 1_000, local: relay, lastPacket: nil, responses: 1), at: .seconds(1))
        let rose = reader.observations(in: Self.report(time: 2_000, local: relay, lastPacket: nil, responses: 2), at: .seconds(2)).first
        #expect(rose?.lastResponseAt == .seconds(2))
        let later = reader.observations(in: Self.report(time: 2_500, local: relay, lastPacket: nil, responses: 2), at: .milliseconds(2_500)).first
        #expect(later?.lastResponseAt == .seconds(2))
        let data = reader.observations(in: Self.report(time: 3_000, local: relay, lastPacket: 2_900, responses: 2), at: .seconds(3)).first
        #expect(data?.lastResponseAt == .milliseconds(2_900))
    }

    /// (requestsSent and responsesReceived at each read, unanswered checks at the last read):
    /// checks sent before the previous read and not answered since (one in flight at a read is
    /// no failure); at the first read, those beyond the responses; after a counter reset,
    /// counted anew.
    static let unanswered: [(String, [(Double, Double)], Int)] = [
        ("all answered", [(3, 3)], 0),
        ("first read, one beyond the responses", [(4, 3)], 1),
        ("first read of a failing pair", [(8, 3)], 5),
        ("a check in flight at a read is not counted", [(3, 3), (4, 3)], 0),
        ("still unanswered a read later", [(3, 3), (4, 3), (4, 3)], 1),
        ("checks go unanswered", [(3, 3), (4, 3), (6, 3), (7, 3)], 3),
        ("an answer clears them", [(3, 3), (6, 3), (7, 4)], 0),
        ("counters reset", [(9, 3), (1, 1)], 0),
    ]

    @Test(arguments: unanswered.indices)
    func unansweredChecks(_ index: Int) {
        let (name, reads, expected) = Self.unanswered[index]
        var reader = CandidatePairReader()
        var last: CandidatePairObservation?
        for (offset, (requests, responses)) in reads.enumerated() {
            let report = Self.report(time: Double(1_000 * (offset + 1)), local: ("relay", "udp", "udp"), responses: responses, requests: requests)
            last = reader.observations(in: report, at: .seconds(Int64(offset + 1))).first
        }
        #expect(last?.unansweredChecks == expected, "\(name)")
    }

    /// (state, responses, succeeded).
    static let states: [(String, Double, Bool)] = [
        ("succeeded", 3, true), ("in-progress", 3, true), ("in-progress", 0, false), ("failed", 3, false), ("waiting", 0, false), ("frozen", 0, false),
    ]

    @Test(arguments: states.indices)
    func pairStates(_ index: Int) {
        let (state, responses, succeeded) = Self.states[index]
        var reader = CandidatePairReader()
        let observation = reader.observations(in: Self.report(local: ("host", "udp", nil), state: state, responses: responses), at: .seconds(1)).first
        #expect(observation?.succeeded == succeeded, "\(state) with \(responses) responses")
    }

    /// A packet time stamp after the report's time is "now", not the future.
    @Test func futurePacketTimeIsNow() {
        var reader = CandidatePairReader()
        let observation = reader.observations(in: Self.report(time: 1_000, local: ("host", "udp", nil), lastPacket: 5_000), at: .seconds(7)).first
        #expect(observation?.lastResponseAt == .seconds(7))
    }

    /// Unknown candidate types, unknown protocols and missing candidates are skipped and counted.
    @Test func unreadablePairsAreCounted() throws {
        var reader = CandidatePairReader()
        #expect(reader.observations(in: Self.report(local: ("mystery", "udp", nil)), at: .seconds(1)).isEmpty)
        #expect(reader.observations(in: Self.report(local: ("host", "sctp", nil)), at: .seconds(1)).isEmpty)
        let orphan = try StatsReport(json: Array(#"[{"id":"CP1","type":"candidate-pair","timestamp":1,"localCandidateId":"L9","remoteCandidateId":"R9","state":"succeeded"}]"#.utf8))
        #expect(reader.observations(in: orphan, at: .seconds(1)).isEmpty)
        #expect(reader.unreadablePairs == 3)
    }

    /// A report read into the tracker: 3 s after the last packet with a 2 s liveness, no path.
    @Test func readerAndTrackerTogether() {
        let bob = JID("bob@example.org")!
        var reader = CandidatePairReader()
        var tracker = FriendPathTracker(consentTimeout: .seconds(2))
        _ = tracker.receive(.friendOnline(bob), now: .zero)
        let fresh = reader.observations(in: Self.report(time: 10_000, local: ("relay", "udp", "udp"), lastPacket: 9_800), at: .seconds(10))
        #expect(tracker.receive(.pairs(bob, fresh), now: .seconds(10)) == [.pathsChanged(bob, .udpRelay)])
        let stale = reader.observations(in: Self.report(time: 13_000, local: ("relay", "udp", "udp"), lastPacket: 10_000), at: .seconds(13))
        #expect(tracker.receive(.pairs(bob, stale), now: .seconds(13)) == [.pathsChanged(bob, [])])
    }

    /// The move to the TCP relay as the trace showed it, through reader and tracker: the UDP
    /// relay pair selected and answered (3 of 3), then silent with 4 checks unanswered while ICE
    /// selects the TCP relay pair, which carries no data yet and shows its answers only in its
    /// counter. Bob's paths: `udpRelay`, then `tcpRelay` alone at every later read.
    @Test func movedToTheTCPRelayTheOldPairIsNoBackup() throws {
        let bob = JID("bob@example.org")!
        func report(time: Double, udp: (requests: Int, responses: Int, lastPacket: Double), tcp: (requests: Int, responses: Int), selected: String) throws -> StatsReport {
            let json = """
            [{"id":"T1","type":"transport","timestamp":\(time),"selectedCandidatePairId":"\(selected)"},
             {"id":"CPU","type":"candidate-pair","timestamp":\(time),"localCandidateId":"LU","remoteCandidateId":"R1","state":"in-progress",
              "requestsSent":\(udp.requests),"responsesReceived":\(udp.responses),"lastPacketReceivedTimestamp":\(udp.lastPacket)},
             {"id":"CPT","type":"candidate-pair","timestamp":\(time),"localCandidateId":"LT","remoteCandidateId":"R1","state":"succeeded",
              "requestsSent":\(tcp.requests),"responsesReceived":\(tcp.responses)},
             {"id":"LU","type":"local-candidate","timestamp":\(time),"candidateType":"relay","protocol":"udp","relayProtocol":"udp"},
             {"id":"LT","type":"local-candidate","timestamp":\(time),"candidateType":"relay","protocol":"udp","relayProtocol":"tcp"},
             {"id":"R1","type":"remote-candidate","timestamp":\(time),"candidateType":"host","protocol":"udp"}]
            """
            return try StatsReport(json: Array(json.utf8))
        }
        var reader = CandidatePairReader()
        var tracker = FriendPathTracker(consentTimeout: .seconds(2), backupTimeout: .seconds(8))
        _ = tracker.receive(.friendOnline(bob), now: .zero)
        // (time in ms, UDP pair, TCP pair, selected, Bob's paths after the read)
        let reads: [(Double, (Int, Int, Double), (Int, Int), String, FriendConnectionPaths)] = [
            (1_000, (3, 3, 900), (0, 0), "CPU", .udpRelay),
            (3_500, (6, 3, 1_000), (1, 1), "CPU", .tcpRelay),      // the UDP pair expired; the TCP pair answered its first check
            (4_200, (7, 3, 1_000), (2, 2), "CPT", .tcpRelay),      // selected now; the old pair is silent 3.2 s, 4 checks unanswered
            (4_700, (7, 3, 1_000), (2, 2), "CPT", .tcpRelay),      // no new answer since 4.2 s: still within 2 s
            (5_300, (8, 3, 1_000), (3, 3), "CPT", .tcpRelay),
        ]
        for (time, udp, tcp, selected, expected) in reads {
            let at = Duration.milliseconds(Int64(time))
            let observations = reader.observations(in: try report(time: time, udp: udp, tcp: tcp, selected: selected), at: at)
            _ = tracker.receive(.pairs(bob, observations), now: at)
            #expect(tracker.paths(of: bob) == expected, "at \(time) ms")
        }
    }

    /// (own, friend, role): the lexically smaller full JID offers.
    static let roles: [(String, String, FriendSessionRole)] = [
        ("alice@example.org/phone", "bob@example.org/laptop", .initiator),
        ("bob@example.org/laptop", "alice@example.org/phone", .responder),
        ("alice@example.org/a", "alice@example.org/b", .initiator),
        ("alice@example.org/b", "alice@example.org/a", .responder),
        ("alice@example.org/Z", "alice@example.org/a", .initiator),      // byte order: "Z" (0x5A) before "a" (0x61)
    ]

    @Test(arguments: roles.indices)
    func initiatorIsTheSmallerFullJID(_ index: Int) {
        let (own, friend, role) = Self.roles[index]
        #expect(FriendSessionRole(own: JID(own)!, friend: JID(friend)!) == role)
    }
}
