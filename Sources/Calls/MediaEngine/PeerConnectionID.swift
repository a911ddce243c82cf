/// An opaque name for one peer connection inside a ``MediaEngine``.
///
/// The engine hands these out from ``MediaEngine/makePeerConnection(_:)``; callers only compare
/// and store them. They are never reused by one engine, so an event or an answer that names an
/// older connection can always be told apart from the current one.
public struct PeerConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The engine's own spelling of the id (e.g. `pc-3`).
    public let rawValue: String

    /// Wraps an engine's id.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The raw id.
    public var description: String { rawValue }
}
