import Observability
import RTCStats

/// A decision of the SDK's layer policy that a recording carries (`subscriber.layerChanged`,
/// `subscriber.videoDisabled`, `subscriber.videoEnabled`, `subscriber.videoDisableWarning`), as
/// a replay applied it: to which stream, and the receive limit in force after it.
public struct SubscriberPolicyEvent: Sendable, Hashable {
    /// Unix ms of the event line.
    public var time: Double
    /// The receiving endpoint.
    public var endpoint: EndpointID
    /// The receiving connection, when the line names it.
    public var peerConnection: PeerConnectionID?
    /// The stream it concerns.
    public var stream: StreamID
    /// The stream's remote publisher, when known.
    public var publisher: PublisherID?
    /// The event name (one of ``TimelineEventName/subscriberPolicyEvents``).
    public var name: String
    /// The event's payload as recorded.
    public var data: JSONValue
    /// The stream's receive limit after the event.
    public var limit: SubscriberReceiveLimit
    /// The line could not be applied (e.g. an unknown `limit`): printed, the limit unchanged.
    public var unreadable: Bool

    /// Creates an event.
    public init(time: Double, endpoint: EndpointID, peerConnection: PeerConnectionID?, stream: StreamID, publisher: PublisherID?,
                name: String, data: JSONValue, limit: SubscriberReceiveLimit, unreadable: Bool = false) {
        self.time = time
        self.endpoint = endpoint
        self.peerConnection = peerConnection
        self.stream = stream
        self.publisher = publisher
        self.name = name
        self.data = data
        self.limit = limit
        self.unreadable = unreadable
    }

    /// One line of `callscope replay --format ndjson`, shaped like a callback's:
    /// `{"t":ms,"peer":..,"pc":..,"stream":..,"publisher":..,"callback":<name>,"data":{..,"limitApplied":..}}`.
    public var ndjsonLine: String {
        var fields = data.object ?? []
        fields.removeAll { $0.name == "limitApplied" }
        fields.append(StatsField("limitApplied", .string(limit.rawValue)))
        if unreadable { fields.append(StatsField("unreadable", .bool(true))) }
        return StatsCallback.ndjsonLine(time: time, endpoint: endpoint, peerConnection: peerConnection?.rawValue ?? "", stream: stream.rawValue,
                                        publisher: publisher, callback: name, data: .object(fields))
    }
}
