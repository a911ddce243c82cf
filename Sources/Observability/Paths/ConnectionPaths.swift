/// Which kinds of working path lead to a participant right now (docs/spec/sessions.md §5): several can
/// be true at once; empty means no path works (which does not end the call).
public struct ConnectionPaths: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The raw bits.
    public let rawValue: UInt8

    /// Creates paths from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A pair whose local candidate is not a relay (host, srflx, prflx), over UDP.
    public static let udpDirect = ConnectionPaths(rawValue: 1 << 0)
    /// A pair whose local candidate is a TURN relay reached over UDP.
    public static let udpRelay = ConnectionPaths(rawValue: 1 << 1)
    /// A pair whose local candidate is a TURN relay reached over TCP or TLS.
    public static let tcpRelay = ConnectionPaths(rawValue: 1 << 2)

    /// Whether any path works.
    public var isOnline: Bool { !isEmpty }

    /// The names of the paths present, in declaration order (`udpDirect`, `udpRelay`, `tcpRelay`).
    public var names: [String] {
        [(ConnectionPaths.udpDirect, "udpDirect"), (.udpRelay, "udpRelay"), (.tcpRelay, "tcpRelay")]
            .filter { contains($0.0) }.map(\.1)
    }

    /// The names joined by `+`, or `none`.
    public var description: String { isEmpty ? "none" : names.joined(separator: "+") }
}
