import FriendConnections
import RTCStats
import Testing
import XMPP

/// Pairs other than the selected one, which libwebrtc pings only every few seconds: they count
/// within the backup timeout while the selected pair works, within the consent timeout when it
/// does not; a pair with a check lost (sent before the previous read, still unanswered) gets
/// the consent timeout too. Tracker with consent 2 s and backup 8 s (the friend manager's defaults), as a table.
@Suite struct BackupPairTests {
    typealias Pair = CandidatePairObservation
    static let bob = JID("bob@example.org")!

    static func direct(selected: Bool, at seconds: Int64) -> Pair {
        Pair(localType: .host, remoteType: .host, succeeded: true, lastResponseAt: .seconds(seconds), selected: selected)
    }

    static func relay(selected: Bool, at seconds: Int64, unanswered: Int = 0) -> Pair {
        Pair(localType: .relay, localRelayProtocol: .udp, remoteType: .host, succeeded: true, lastResponseAt: .seconds(seconds), selected: selected,
             unansweredChecks: unanswered)
    }

    static func tcpRelay(selected: Bool, at seconds: Int64) -> Pair {
        Pair(localType: .relay, localRelayProtocol: .tcp, remoteType: .host, succeeded: true, lastResponseAt: .seconds(seconds), selected: selected)
    }

    /// (name, pairs reported at t = 10 s, paths).
    static let rows: [(String, [Pair], FriendConnectionPaths)] = [
        ("selected fresh, backup answered 5 s ago: both", [direct(selected: true, at: 10), relay(selected: false, at: 5)], [.udpDirect, .udpRelay]),
        ("selected fresh, backup answered 9 s ago: selected only", [direct(selected: true, at: 10), relay(selected: false, at: 1)], .udpDirect),
        ("selected silent 3 s, backup 5 s ago: nothing (a blackout)", [direct(selected: true, at: 7), relay(selected: false, at: 5)], []),
        ("selected silent 3 s, backup 1 s ago: the backup (the switch)", [direct(selected: true, at: 7), relay(selected: false, at: 9)], .udpRelay),
        ("no pair selected: the consent timeout for all", [direct(selected: false, at: 9), relay(selected: false, at: 5)], .udpDirect),
        ("backup with a check lost: no backup window", [direct(selected: true, at: 10), relay(selected: false, at: 5, unanswered: 1)], .udpDirect),
        // Measured too: a UDP relay pair answered once at setup, its next check (when ICE went
        // looking) lost, listed beside the new selected TCP relay pair.
        ("answered once at setup, then a check lost", [tcpRelay(selected: true, at: 10), relay(selected: false, at: 4, unanswered: 1)], .tcpRelay),
        // All UDP dropped: ICE moved to the TCP relay; the UDP pair it left, silent 4 s with its
        // checks unanswered, is no backup (measured: listed beside tcpRelay until the 8 s ran out).
        ("the pair ICE left, checks unanswered: not a backup", [tcpRelay(selected: true, at: 10), relay(selected: false, at: 6, unanswered: 5)], .tcpRelay),
        ("the same, two unanswered", [tcpRelay(selected: true, at: 10), relay(selected: false, at: 6, unanswered: 2)], .tcpRelay),
        ("answered lately, checks unanswered: the consent timeout", [tcpRelay(selected: true, at: 10), relay(selected: false, at: 9, unanswered: 3)], [.udpRelay, .tcpRelay]),
    ]

    @Test(arguments: rows.indices)
    func backupPairs(_ index: Int) {
        let (name, pairs, expected) = Self.rows[index]
        var tracker = FriendPathTracker(consentTimeout: .seconds(2), backupTimeout: .seconds(8))
        _ = tracker.receive(.friendOnline(Self.bob), now: .zero)
        _ = tracker.receive(.pairs(Self.bob, pairs), now: .seconds(10))
        #expect(tracker.paths(of: Self.bob) == expected, "\(name)")
    }

    /// The reader marks the pair a transport names as selected, and only it.
    @Test func readerMarksTheSelectedPair() throws {
        let json = #"""
        [{"id":"T1","type":"transport","timestamp":1000,"selectedCandidatePairId":"CP2"},
         {"id":"CP1","type":"candidate-pair","timestamp":1000,"localCandidateId":"L1","remoteCandidateId":"R1","state":"succeeded"},
         {"id":"CP2","type":"candidate-pair","timestamp":1000,"localCandidateId":"L1","remoteCandidateId":"R1","state":"succeeded"},
         {"id":"L1","type":"local-candidate","timestamp":1000,"candidateType":"host","protocol":"udp"},
         {"id":"R1","type":"remote-candidate","timestamp":1000,"candidateType":"host","protocol":"udp"}]
        """#
        var reader = CandidatePairReader()
        let observations = reader.observations(in: try StatsReport(json: Array(json.utf8)), at: .seconds(1))
        #expect(observations.map(\.selected) == [false, true])
    }
}
