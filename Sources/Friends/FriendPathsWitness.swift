import Connectivity
import FriendConnections

/// What the friend connections' paths tell the discoverability machine, as a value (tested as a
/// table and as sequences): the paths of every friend together, before and after one stats
/// report.
///
/// - Every path lost: ``DiscoverabilityStateMachine/Input/mediaPathsLost`` (a firewall changes
///   no interface, so nothing else would start a round at once), unless the round an earlier
///   loss started is still running: it already measures the network the paths were lost on.
/// - A path back after none, proving a level better than the adopted one (any path proves at
///   least `tcp`, a UDP path `udp`): a round at once, as on a network change, so the level goes
///   up without waiting for the next round.
/// - Otherwise nothing.
///
/// Why so few rounds: a round started by a loss or a network change abandons the running one and
/// voids the worse rounds already counted, and paths that come and go while ICE moves to another
/// pair (or restarts) would put off a worse level again and again. RealFriendManagerTests, all
/// UDP dropped: `tcp` after 8.1-8.2 s when every returning path started a round (11.7 s when an
/// ICE restart emptied the paths once more), 4.6-4.7 s without; 7.75 s once when Bob's paths went
/// and came three times, every loss starting the round anew.
struct FriendPathsWitness: Hashable, Sendable {
    /// A round started by lost paths has not ended yet.
    private(set) var lossRoundRunning = false

    /// The input for the machine, or `nil`.
    mutating func input(before: FriendConnectionPaths, after: FriendConnectionPaths, adopted: SelfConnectionStatus?) -> DiscoverabilityStateMachine.Input? {
        if !before.isEmpty, after.isEmpty {
            guard !lossRoundRunning else { return nil }
            lossRoundRunning = true
            return .mediaPathsLost
        }
        guard before.isEmpty, !after.isEmpty, let adopted, Self.provenLevel(after) > adopted else { return nil }
        return .networkChanged
    }

    /// The machine ended a round (it reported a level or scheduled the next round).
    mutating func roundEnded() {
        lossRoundRunning = false
    }

    /// The discoverability working `paths` prove: UDP through a direct or relayed pair is `udp`,
    /// TCP to the relay is `tcp`.
    static func provenLevel(_ paths: FriendConnectionPaths) -> SelfConnectionStatus {
        if !paths.isDisjoint(with: [.udpDirect, .udpRelay]) { return .udp }
        return paths.isEmpty ? .offline : .tcp
    }
}
