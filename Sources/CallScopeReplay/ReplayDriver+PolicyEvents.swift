import Observability
import RTCStats

extension ReplayDriver {
    /// A stream of a receiving endpoint.
    struct StreamKey: Hashable, Sendable {
        var endpoint: EndpointID
        var stream: StreamID
    }

    /// Applies one layer-policy event line to the engine, as the live SDK did when it made the
    /// decision: `subscriber.layerChanged` sets the stream's limit to its `limit`;
    /// `subscriber.videoDisabled` sets `.paused` for `qualityChanged`, `.videoOff` for the other
    /// reasons (a layer change meanwhile is remembered, the
    /// video stays paused); `subscriber.videoEnabled` returns to the last layer limit (`.none`
    /// before any); `subscriber.videoDisableWarning` changes nothing. A line whose `limit` is
    /// missing or unknown leaves the limit as it was and is counted in
    /// ``unreadablePolicyEvents``. A stream whose limits the recording gives at decision time
    /// (``TimelineEventName/subscriberReceiveLimit``) takes them from those lines only: its
    /// policy events are returned with the limit in force, and change nothing.
    ///
    /// The stream is the one `data.stream` names, else the one of `data.publisher` on the
    /// line's connection, else that connection's first stream (one per subscriber connection
    /// with Janus), else ``StreamID/sole``.
    mutating func applyPolicyEvent(_ event: TimelineEvent) -> SubscriberPolicyEvent {
        let (key, binding, connection) = policyStream(of: event)
        let endpoint = key.endpoint, stream = key.stream
        var limit: SubscriberReceiveLimit = engine.receiveLimit(endpoint: endpoint, stream: stream)
        var unreadable = false
        switch event.name {
        case TimelineEventName.subscriberLayerChanged:
            if let value = event.data["limit"]?.string, let layerLimit = SubscriberReceiveLimit(rawValue: value) {
                // A layer chosen while the video is off says so in its limit: it applies at
                // `videoEnabled`, the video stays off meanwhile.
                if layerLimit != .paused, layerLimit != .videoOff { layerLimits[key] = layerLimit }
                if limit != .paused, limit != .videoOff { limit = layerLimit }
            } else {
                unreadable = true
            }
        case TimelineEventName.subscriberVideoDisabled:
            // Audio fallback (`qualityChanged`) is our pause under a downlink that cannot carry
            // the video; the other reasons switch it off by choice.
            limit = event.data["reason"]?.string == "qualityChanged" ? .paused : .videoOff
        case TimelineEventName.subscriberVideoEnabled:
            limit = layerLimits[key] ?? .none
        default:
            break
        }
        if unreadable { unreadablePolicyEvents += 1 }
        if decidedLimits.contains(key) {
            limit = engine.receiveLimit(endpoint: endpoint, stream: stream)
        } else {
            engine.setReceiveLimit(limit, endpoint: endpoint, stream: stream)
        }
        return SubscriberPolicyEvent(time: event.time, endpoint: endpoint, peerConnection: connection, stream: stream,
                                     publisher: binding?.publisher ?? event.data["publisher"]?.string.map { PublisherID($0) }, name: event.name,
                                     data: event.data, limit: limit, unreadable: unreadable)
    }

    /// Applies a ``TimelineEventName/subscriberReceiveLimit`` line: the stream's limit from the
    /// next report on, and from now on only from such lines. A line without a known `limit`
    /// changes nothing and is counted in ``unreadablePolicyEvents``.
    mutating func applyReceiveLimit(_ event: TimelineEvent) {
        guard let value = event.data["limit"]?.string, let limit = SubscriberReceiveLimit(rawValue: value) else {
            unreadablePolicyEvents += 1
            return
        }
        let (key, _, _) = policyStream(of: event)
        decidedLimits.insert(key)
        engine.setReceiveLimit(limit, endpoint: key.endpoint, stream: key.stream)
    }

    /// The stream a subscriber's line concerns (see ``applyPolicyEvent(_:)``), its binding when
    /// known, and the line's connection.
    private func policyStream(of event: TimelineEvent) -> (StreamKey, StreamBinding?, PeerConnectionID?) {
        let endpoint = EndpointID(event.peer)
        let connection: PeerConnectionID? = event.peerConnection.map { PeerConnectionID($0) }
        var carried: [StreamBinding] = []
        if let connection { carried = bindings(of: ReplayPolicy.ConnectionKey(endpoint: endpoint, peerConnection: connection)) }
        let namedPublisher: PublisherID? = event.data["publisher"]?.string.map { PublisherID($0) }
        var binding: StreamBinding? = carried.first
        if let name = event.data["stream"]?.string {
            binding = carried.first { $0.stream.rawValue == name } ?? StreamBinding(stream: StreamID(name), publisher: namedPublisher ?? .unnamed)
        } else if let namedPublisher, let match = carried.first(where: { $0.publisher == namedPublisher }) {
            binding = match
        }
        return (StreamKey(endpoint: endpoint, stream: binding?.stream ?? .sole), binding, connection)
    }
}
