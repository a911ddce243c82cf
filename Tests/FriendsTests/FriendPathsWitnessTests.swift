import Connectivity
import FriendConnections
@testable import Friends
import Testing

/// What the paths of every friend together tell the discoverability machine: losing them all
/// starts a round that witnesses for a worse level; a path back after none starts a round only
/// when it proves a level better than the adopted one (so paths coming and going while ICE moves
/// to the TCP relay never void the worse rounds already counted).
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
        #expect(FriendPathsWitness.input(before: row.before, after: row.after, adopted: row.adopted) == row.expected,
                "\(row.before) -> \(row.after) at \(row.adopted.map(String.init(describing:)) ?? "no level")")
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
