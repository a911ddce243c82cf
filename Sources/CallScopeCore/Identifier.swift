/// What an ``Identifier`` names; a marker type per kind keeps ids of different kinds apart.
public protocol IdentifierKind: Sendable {}

/// A small typed id: an endpoint, a peer connection, a stream or a publisher. Two ids of
/// different kinds never compare, so a stream id cannot be passed where a publisher id is meant.
public struct Identifier<Kind: IdentifierKind>: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as the source spelt it (a recording label, a router's feed id, a stats id).
    public let rawValue: String

    /// Creates an id.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates an id.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates an id from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
