import CallScopeCore

/// Marks ids of endpoints: one app instance (a recording's `peer`).
public enum EndpointKind: IdentifierKind {}
/// Marks ids of peer connections within an endpoint (a recording's `pc`).
public enum PeerConnectionKind: IdentifierKind {}
/// Marks ids of subscribed streams.
public enum StreamKind: IdentifierKind {}
/// Marks ids of remote publishers (remote participants).
public enum PublisherKind: IdentifierKind {}

/// One endpoint (an app instance in the call).
public typealias EndpointID = Identifier<EndpointKind>
/// One peer connection of an endpoint; a replaced connection gets a new id.
public typealias PeerConnectionID = Identifier<PeerConnectionKind>
/// One subscribed stream; it keeps its id when the connection carrying it is replaced.
public typealias StreamID = Identifier<StreamKind>
/// One remote publisher, whose streams and sender-stats messages a subscriber receives.
public typealias PublisherID = Identifier<PublisherKind>

extension Identifier where Kind == StreamKind {
    /// The stream of a connection that carries one stream when the caller names none.
    public static let sole = StreamID("")
}

extension Identifier where Kind == PublisherKind {
    /// The publisher of a two-party call, when neither the caller nor the message names one.
    public static let unnamed = PublisherID("")
}
