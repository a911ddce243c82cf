import Connectivity
import FriendConnections

/// What the friend connections' paths tell the discoverability machine, as a value (tested as a
/// table): the paths of every friend together, before and after one stats report.
///
/// - Every path lost: ``DiscoverabilityStateMachine/Input/mediaPathsLost`` (a firewall changes
///   no interface, so nothing else would start a round at once).
/// - A path back after none, proving a level better than the adopted one (any path proves at
///   least `tcp`, a UDP path `udp`): a round at once, as on a network change, so the level goes
///   up without waiting for the next round.
/// - Otherwise nothing. A returning path that proves no better level starts no round: a round
///   started as on a network change voids the worse rounds already counted, and paths that come
///   and go while ICE moves to another pair (or restarts) would put off a worse level again and
///   again (RealFriendManagerTests, all UDP dropped: `tcp` after 8.1-8.2 s, and 11.7 s when an
///   ICE restart emptied the paths once more; 4.6-4.7 s without those rounds).
enum FriendPathsWitness {
    /// The input for the machine, or `nil`.
    static func input(before: FriendConnectionPaths, after: FriendConnectionPaths, adopted: SelfConnectionStatus?) -> DiscoverabilityStateMachine.Input? {
        if !before.isEmpty, after.isEmpty { return .mediaPathsLost }
        guard before.isEmpty, !after.isEmpty, let adopted, provenLevel(after) > adopted else { return nil }
        return .networkChanged
    }

    /// The discoverability working `paths` prove: UDP through a direct or relayed pair is `udp`,
    /// TCP to the relay is `tcp`.
    static func provenLevel(_ paths: FriendConnectionPaths) -> SelfConnectionStatus {
        if !paths.isDisjoint(with: [.udpDirect, .udpRelay]) { return .udp }
        return paths.isEmpty ? .offline : .tcp
    }
}
