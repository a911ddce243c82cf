/// Which paths to one friend work now (seed 003's `FriendConnectionPaths`): any combination of
/// direct UDP, UDP through a relay and TCP through a relay; empty when none works or the friend
/// is offline.
public struct FriendConnectionPaths: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bits.
    public let rawValue: UInt8
    /// Wraps bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Direct UDP between the two devices (host, server- or peer-reflexive candidates), the best path.
    public static let udpDirect = FriendConnectionPaths(rawValue: 1 << 0)
    /// UDP through a TURN relay (either side's relayed candidate, allocated over UDP).
    public static let udpRelay = FriendConnectionPaths(rawValue: 1 << 1)
    /// TCP to a TURN relay (our relayed candidate allocated over TCP or TLS).
    public static let tcpRelay = FriendConnectionPaths(rawValue: 1 << 2)

    /// Whether at least one path works.
    public var isOnline: Bool { !isEmpty }

    /// `udpDirect+udpRelay`, or `none`.
    public var description: String {
        let names = [(Self.udpDirect, "udpDirect"), (Self.udpRelay, "udpRelay"), (Self.tcpRelay, "tcpRelay")].filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "none" : names.joined(separator: "+")
    }
}
