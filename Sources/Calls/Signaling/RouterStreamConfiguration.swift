/// What the router should forward on one media section of a subscription (Janus VideoRoom
/// subscriber `configure`, one entry of `streams`); a `nil` field is left as it is.
public struct RouterStreamConfiguration: Hashable, Sendable {
    /// The media section's mid on the subscription.
    public var mid: String
    /// `false` pauses forwarding, `true` resumes it (the router then asks the publisher for a key frame).
    public var send: Bool?
    /// The simulcast substream, 0 (lowest) to 2.
    public var substream: Int?
    /// The temporal layer, 0 (lowest frame rate) to 2.
    public var temporal: Int?

    /// Creates a configuration.
    public init(mid: String, send: Bool? = nil, substream: Int? = nil, temporal: Int? = nil) {
        self.mid = mid
        self.send = send
        self.substream = substream
        self.temporal = temporal
    }
}

extension Signaling {
    /// Default for routers that cannot choose layers: refuses (a routed session's subscribers
    /// then receive whatever the router forwards).
    public func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {
        throw SignalingError("configure: this router does not choose layers")
    }

    /// Default: the whole ``configure(_:streams:)``, answer included, then an empty task.
    public func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        try await configure(handle, streams: streams)
        return Task {}
    }
}
