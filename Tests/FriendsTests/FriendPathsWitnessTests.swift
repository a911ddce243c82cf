import Connectivity
import FriendConnections
@testable import Friends
import Testing

/// What the paths of every friend together tell the discoverability machine: losing them all
/// starts a round that witnesses for a worse level, unless the round an earlier loss started
/// still runs; a path back after none starts a round only when it proves a level better than the
/// adopted one (so paths coming and going while ICE moves to the TCP relay never void the worse
/// rounds already counted).
@Suite struct FriendPathsWitnessTests {
    typealias Row = (before: FriendConnectionPaths, after: FriendConnectionPaths, adopted: SelfConnectionStatus?, expected: DiscoverabilityStateMachine.Input?)

    @Test(arguments: [
        // Every path lost: the lost media witness, whatever the level.
        ([.udpRelay], [], .udp, .mediaPathsLost),
        ([.tcpRelay], [], .tcp, .mediaPathsLost),
        ([.udpDirect, .tcpRelay], [], nil, .mediaPathsLost),
        // Back after none, proving more than the adopted level: a round at once.
        ([], [.tcpRelay], .offline, .networkChanged),
        ([], [.udpDirect], .offline, .networkChanged),
        ([], [.udpRelay], .tcp, .networkChanged),
        ([], [.udpDirect, .tcpRelay], .tcp, .networkChanged),
        // Back, proving nothing better: no round (a worse level may be being confirmed).
        ([], [.tcpRelay], .udp, nil),
        ([], [.udpRelay], .udp, nil),
        ([], [.tcpRelay], .tcp, nil),
        // No level yet: the first round is running anyway.
        ([], [.udpDirect], nil, nil),
        // Paths that change but never all go: nothing.
        ([.udpRelay], [.tcpRelay], .udp, nil),
        ([.tcpRelay], [.udpRelay, .tcpRelay], .tcp, nil),
        ([], [], .udp, nil),
    ] as [Row])
    func inputForTheMachine(_ row: Row) {
        var witness = FriendPathsWitness()
        #expect(witness.input(before: row.before, after: row.after, adopted: row.adopted) == row.expected,
                "\(row.before) -> \(row.after) at \(row.adopted.map(String.init(describing:)) ?? "no level")")
    }

    /// Paths that go, come back and go again while the round the first loss started runs (Bob's
    /// paths while ICE moved to his TCP relay): one round, not one per loss; after that round
    /// ended, a loss starts one again.
    @Test func lossesDuringTheirRoundStartNoOther() {
        var witness = FriendPathsWitness()
        #expect(witness.input(before: [.udpRelay], after: [], adopted: .udp) == .mediaPathsLost)
        #expect(witness.input(before: [], after: [.tcpRelay], adopted: .udp) == nil)
        #expect(witness.input(before: [.tcpRelay], after: [], adopted: .udp) == nil)
        #expect(witness.input(before: [], after: [.udpRelay, .tcpRelay], adopted: .udp) == nil)
        #expect(witness.input(before: [.udpRelay, .tcpRelay], after: [], adopted: .udp) == nil)
        witness.roundEnded()
        #expect(witness.input(before: [.tcpRelay], after: [], adopted: .tcp) == .mediaPathsLost)
        // A better path back still starts a round while a loss round runs.
        #expect(witness.input(before: [], after: [.udpDirect], adopted: .tcp) == .networkChanged)
    }

    @Test(arguments: [
        (FriendConnectionPaths(), SelfConnectionStatus.offline),
        ([.tcpRelay], .tcp),
        ([.udpRelay], .udp),
        ([.udpDirect], .udp),
        ([.udpRelay, .tcpRelay], .udp),
    ] as [(FriendConnectionPaths, SelfConnectionStatus)])
    func levelThePathsProve(_ paths: FriendConnectionPaths, _ level: SelfConnectionStatus) {
        #expect(FriendPathsWitness.provenLevel(paths) == level)
    }
}
