import Observability
import Foundation

/// Who is in the room and what they publish, as a value: room events in, session events out.
///
/// The router repeats itself (`publishers` lists known feeds again; a timed-out participant
/// produces `unpublished` twice, then `leaving`), so every output is derived from a change of
/// this state, never from an input alone: each stream is created once and destroyed once.
struct RoomRoster: Sendable {
    /// Inputs, from ``Signaling``.
    enum Input: Sendable {
        case feedsPublished([RouterFeed])
        case feedUnpublished(FeedID)
        case participantJoined(FeedID, display: String?)
        case participantLeft(FeedID)
    }

    /// Our own participant id (a new one after a rejoin).
    var own: FeedID
    private(set) var connections: [FeedID: CallConnection] = [:]
    private(set) var streams: [FeedID: CallStream] = [:]
    /// Inputs that changed nothing (duplicates, unknown ids): counted, not fatal.
    private(set) var ignoredInputs = 0

    init(own: FeedID) { self.own = own }

    mutating func receive(_ input: Input, now: Date) -> [CallSessionEvent] {
        var events: [CallSessionEvent] = []
        switch input {
        case .feedsPublished(let feeds):
            for feed in feeds where feed.id != own {
                let connection = ensureConnection(feed.id, display: feed.display, now: now, events: &events)
                guard streams[feed.id] == nil else { continue }
                let stream = CallStream(streamId: feed.id.rawValue, connection: connection, creationTime: now,
                                        hasAudio: feed.hasAudio, hasVideo: feed.hasVideo, name: feed.display,
                                        videoType: feed.videoDescription.flatMap(CallStreamVideoType.init(rawValue:)) ?? .camera)
                streams[feed.id] = stream
                events.append(.streamCreated(stream))
            }
        case .feedUnpublished(let id):
            if let stream = streams.removeValue(forKey: id) {
                events.append(.streamDestroyed(stream, reason: .unpublished))
            }
        case .participantJoined(let id, let display):
            if id != own { _ = ensureConnection(id, display: display, now: now, events: &events) }
        case .participantLeft(let id):
            if let stream = streams.removeValue(forKey: id) {
                events.append(.streamDestroyed(stream, reason: .publisherLeft))
            }
            if let connection = connections.removeValue(forKey: id) {
                events.append(.connectionDestroyed(connection))
            }
        }
        if events.isEmpty { ignoredInputs += 1 }
        return events
    }

    /// A subscriber decoded `dimensions` of stream `id`: `streamVideoDimensionsChanged` when
    /// that is new for the stream, nothing when it is the same or the stream is not (or no
    /// longer) here.
    mutating func decodedVideo(_ dimensions: CallVideoDimensions, of id: FeedID) -> [CallSessionEvent] {
        guard var stream = streams[id], stream.videoDimensions != dimensions else { return [] }
        stream.videoDimensions = dimensions
        streams[id] = stream
        return [.streamVideoDimensionsChanged(stream)]
    }

    /// Removes a stream without an event (the caller reported it), so a later `unpublished`
    /// for it changes nothing.
    mutating func drop(_ id: FeedID) -> CallStream? { streams.removeValue(forKey: id) }

    /// After a rejoin (new signaling session): the feeds there now. A stream still there under
    /// the same id stays silently; one that is gone is destroyed; one under a new id is created.
    mutating func rejoined(_ feeds: [RouterFeed], now: Date) -> [CallSessionEvent] {
        let present = Set(feeds.map(\.id))
        var events: [CallSessionEvent] = []
        for id in streams.keys.sorted(by: { $0.rawValue < $1.rawValue }) where !present.contains(id) {
            if let stream = streams.removeValue(forKey: id) { events.append(.streamDestroyed(stream, reason: .publisherLeft)) }
            if let connection = connections.removeValue(forKey: id) { events.append(.connectionDestroyed(connection)) }
        }
        return events + receive(.feedsPublished(feeds), now: now)
    }

    /// Everything still there, destroyed (the session ended).
    mutating func clear() -> [CallSessionEvent] {
        let events = streams.values.sorted { $0.streamId < $1.streamId }.map { CallSessionEvent.streamDestroyed($0, reason: .sessionEnded) }
        streams.removeAll()
        connections.removeAll()
        return events
    }

    private mutating func ensureConnection(_ id: FeedID, display: String?, now: Date, events: inout [CallSessionEvent]) -> CallConnection {
        if let known = connections[id] { return known }
        let connection = CallConnection(connectionId: id.rawValue, creationTime: now, data: display)
        connections[id] = connection
        events.append(.connectionCreated(connection))
        return connection
    }
}
