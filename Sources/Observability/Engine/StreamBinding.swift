/// Which stream a subscriber connection's receivers belong to, as the caller knows it (a
/// subscriber object knows its stream, a router says which feed is behind which mid).
///
/// A binding with no `mids` claims a connection's only stream; with `mids`, the receivers whose
/// `mid` is listed. Receivers no binding claims are split by the engine's own rules.
public struct StreamBinding: Sendable, Hashable {
    /// The stream; it keeps this id when the connection carrying it is replaced.
    public var stream: StreamID
    /// The remote publisher the stream comes from (whose sender stats it reads).
    public var publisher: PublisherID
    /// The stream's receivers on a connection carrying several streams; empty for the
    /// connection's only stream.
    public var mids: [String]

    /// Creates a binding.
    public init(stream: StreamID, publisher: PublisherID = .unnamed, mids: [String] = []) {
        self.stream = stream
        self.publisher = publisher
        self.mids = mids
    }
}
