import FriendConnections
import Testing
import XMPP

/// The friend-path tracker as tables: pair classification (seed 003's three paths), and input
/// sequences with the actions of their last step.
@Suite struct FriendPathTrackerTests {
    typealias Pair = CandidatePairObservation

    static let bob = JID("bob@example.org")!

    private static func pair(_ local: Pair.CandidateType, _ remote: Pair.CandidateType, relayOver: Pair.TransportProtocol? = nil,
                             transport: Pair.TransportProtocol = .udp, succeeded: Bool = true, at seconds: Int64? = 0) -> Pair {
        Pair(localType: local, localRelayProtocol: relayOver, remoteType: remote, transport: transport, succeeded: succeeded,
             lastResponseAt: seconds.map { .seconds($0) })
    }

    static let classification: [(Pair, FriendConnectionPaths)] = [
        (pair(.host, .host), .udpDirect),
        (pair(.serverReflexive, .peerReflexive), .udpDirect),
        (pair(.host, .serverReflexive), .udpDirect),
        (pair(.relay, .host, relayOver: .udp), .udpRelay),
        (pair(.host, .relay), .udpRelay),                          // the peer's relay, reached over UDP
        (pair(.relay, .relay, relayOver: .udp), .udpRelay),
        (pair(.relay, .host, relayOver: .tcp), .tcpRelay),         // our relay allocated over TCP
        (pair(.relay, .relay, relayOver: .tcp), .tcpRelay),
        (pair(.host, .host, transport: .tcp), []),                 // direct ICE-TCP: not one of the seed's paths
    ]

    @Test(arguments: classification.indices)
    func pairClassification(_ index: Int) {
        let (pair, expected) = Self.classification[index]
        #expect(pair.path == expected, "\(pair)")
    }

    /// (name, inputs with their time in seconds, the actions of the last input, paths after).
    static let sequences: [(String, [(FriendPathTracker.Input, Int64)], [FriendPathTracker.Action], FriendConnectionPaths)] = [
        ("online opens a connection, no paths yet", [(.friendOnline(bob), 0)], [.openConnection(bob)], []),
        ("direct pair works", [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1)]), 1)], [.pathsChanged(bob, .udpDirect)], .udpDirect),
        ("several paths at once",
         [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1), pair(.relay, .host, relayOver: .udp, at: 1), pair(.relay, .host, relayOver: .tcp, at: 1)]), 1)],
         [.pathsChanged(bob, [.udpDirect, .udpRelay, .tcpRelay])], [.udpDirect, .udpRelay, .tcpRelay]),
        ("the same paths again: no event",
         [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1)]), 1), (.pairs(bob, [pair(.host, .host, at: 2)]), 2)], [], .udpDirect),
        ("a failed pair is no path", [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, succeeded: false, at: 1)]), 1)], [], []),
        ("a pair never answered is no path", [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: nil)]), 1)], [], []),
        ("UDP dropped: direct goes, TCP relay stays",
         [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1), pair(.relay, .host, relayOver: .tcp, at: 1)]), 1),
          (.pairs(bob, [pair(.host, .host, at: 1), pair(.relay, .host, relayOver: .tcp, at: 40)]), 40)],
         [.pathsChanged(bob, .tcpRelay)], .tcpRelay),
        ("consent expires with no report: empty on a tick at 30 s",
         [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1)]), 1), (.tick, 30), (.tick, 31)],
         [.pathsChanged(bob, [])], []),
        ("just inside consent: still working", [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1)]), 1), (.tick, 30)], [], .udpDirect),
        ("offline: paths emptied, connection closed",
         [(.friendOnline(bob), 0), (.pairs(bob, [pair(.host, .host, at: 1)]), 1), (.friendOffline(bob), 2)],
         [.pathsChanged(bob, []), .closeConnection(bob)], []),
        ("offline with no paths: only closed", [(.friendOnline(bob), 0), (.friendOffline(bob), 1)], [.closeConnection(bob)], []),
        ("a report for an offline friend is ignored", [(.pairs(bob, [pair(.host, .host, at: 1)]), 1)], [], []),
        ("online twice opens once", [(.friendOnline(bob), 0), (.friendOnline(bob), 1)], [], []),
        ("back after offline: a new connection",
         [(.friendOnline(bob), 0), (.friendOffline(bob), 1), (.friendOnline(bob), 2)], [.openConnection(bob)], []),
    ]

    @Test(arguments: sequences.indices)
    func sequence(_ index: Int) {
        let (name, inputs, expected, paths) = Self.sequences[index]
        var tracker = FriendPathTracker()
        var last: [FriendPathTracker.Action] = []
        for (input, seconds) in inputs { last = tracker.receive(input, now: .seconds(seconds)) }
        #expect(last == expected, "\(name)")
        #expect(tracker.paths(of: Self.bob) == paths, "\(name)")
    }

    @Test func ignoredReportsAreCounted() {
        var tracker = FriendPathTracker()
        _ = tracker.receive(.pairs(Self.bob, []), now: .zero)
        #expect(tracker.ignoredReports == 1)
    }

    @Test func descriptionNamesThePaths() {
        #expect(FriendConnectionPaths([.udpDirect, .tcpRelay]).description == "udpDirect+tcpRelay")
        #expect(FriendConnectionPaths().description == "none")
        #expect(!FriendConnectionPaths().isOnline)
    }
}
