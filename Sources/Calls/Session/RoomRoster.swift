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
    /// Our own published stream, while published (seed 004: the app's "is this stream mine?"
    /// check sees it in `streamCreated` too).
    private(set) var ownStream: CallStream?
    /// Participants we ended the call with (``hangUp(_:)``): what the router says of them is
    /// ignored until they leave.
    private(set) var hungUp: Set<FeedID> = []
    /// The router's last word on each feed publishing, to offer a stream again after our side
    /// dropped it.
    private var feeds: [FeedID: RouterFeed] = [:]
    /// Streams whose video we decoded.
    private var decoded: Set<FeedID> = []
    /// Inputs that changed nothing (duplicates, unknown ids): counted, not fatal.
    private(set) var ignoredInputs = 0

    init(own: FeedID) { self.own = own }

    mutating func receive(_ input: Input, now: Date) -> [CallSessionEvent] {
        var events: [CallSessionEvent] = []
        switch input {
        case .feedsPublished(let published):
            for feed in published where feed.id != own && !hungUp.contains(feed.id) {
                let connection = ensureConnection(feed.id, display: feed.display, now: now, events: &events)
                feeds[feed.id] = feed
                let announced = Self.stream(feed, connection: connection, now: now)
                guard let known = streams[feed.id] else {
                    streams[feed.id] = announced
                    events.append(.streamCreated(announced))
                    continue
                }
                // Announced again (Janus does so when the publisher changes its descriptions):
                // what it says now, keeping when it appeared and the size we decode.
                var updated = known
                (updated.hasAudio, updated.hasVideo, updated.name, updated.videoType) =
                    (announced.hasAudio, announced.hasVideo, announced.name, announced.videoType)
                guard updated != known else { continue }
                streams[feed.id] = updated
                events.append(.streamPropertiesChanged(updated))
            }
        case .feedUnpublished(let id):
            feeds[id] = nil
            if let stream = streams.removeValue(forKey: id) {
                events.append(.streamDestroyed(stream, reason: .unpublished))
            }
        case .participantJoined(let id, let display):
            if id != own, !hungUp.contains(id) { _ = ensureConnection(id, display: display, now: now, events: &events) }
        case .participantLeft(let id):
            feeds[id] = nil
            hungUp.remove(id)
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

    /// A stream as the router announces `feed`: its publisher's description (name, video
    /// type, creation time, size, enabled tracks) where it gave one, else its display name, a
    /// camera, and `now`.
    static func stream(_ feed: RouterFeed, connection: CallConnection, now: Date) -> CallStream {
        let described = PublishedStreamDescription(decoding: feed.mediaDescription)
        return CallStream(streamId: feed.id.rawValue, connection: connection, creationTime: described.creationTime ?? now,
                          hasAudio: feed.hasAudio && described.hasAudio != false, hasVideo: feed.hasVideo && described.hasVideo != false,
                          name: described.name ?? feed.display, videoType: described.videoType ?? .camera,
                          videoDimensions: described.videoDimensions)
    }

    // MARK: - Our own stream

    /// We publish `stream`: `streamCreated` for it (after the old one's `streamDestroyed` when
    /// a republish moved it to another id), `streamPropertiesChanged` when only its properties
    /// changed.
    mutating func ownStreamPublished(_ stream: CallStream) -> [CallSessionEvent] {
        guard let old = ownStream else {
            ownStream = stream
            return [.streamCreated(stream)]
        }
        ownStream = stream
        if old.streamId == stream.streamId { return old == stream ? [] : [.streamPropertiesChanged(stream)] }
        return [.streamDestroyed(old, reason: .unpublished), .streamCreated(stream)]
    }

    /// Our stream is gone (`reason`): its `streamDestroyed`, once.
    mutating func ownStreamEnded(_ reason: StreamDestroyedReason) -> [CallSessionEvent] {
        guard let old = ownStream else { return [] }
        ownStream = nil
        return [.streamDestroyed(old, reason: reason)]
    }

    // MARK: - Ending the call with one participant

    /// Whether `id` is the only participant left whom we did not hang up on.
    func isLastOther(_ id: FeedID) -> Bool {
        connections.keys.allSatisfy { $0 == id || hungUp.contains($0) }
    }

    /// We end the call with participant `id`: its stream is destroyed (`hungUp`) and the router's
    /// news of it ignored until it leaves; its connection stays until ``hangUpConfirmed(_:)``.
    mutating func hangUp(_ id: FeedID) -> [CallSessionEvent] {
        guard connections[id] != nil, !hungUp.contains(id) else { return [] }
        hungUp.insert(id)
        feeds[id] = nil
        guard let stream = streams.removeValue(forKey: id) else { return [] }
        return [.streamDestroyed(stream, reason: .hungUp)]
    }

    /// The router confirmed our side is closed: the participant's `connectionDestroyed`.
    mutating func hangUpConfirmed(_ id: FeedID) -> [CallSessionEvent] {
        guard hungUp.contains(id), let connection = connections.removeValue(forKey: id) else { return [] }
        return [.connectionDestroyed(connection)]
    }

    /// Offers again a stream our side dropped (its subscriber's reconnect window ran out) while
    /// its publisher still publishes: `streamCreated` under the same id.
    mutating func reoffer(_ id: FeedID, now: Date) -> [CallSessionEvent] {
        guard streams[id] == nil, !hungUp.contains(id), let feed = feeds[id], let connection = connections[id] else { return [] }
        let stream = Self.stream(feed, connection: connection, now: now)
        streams[id] = stream
        return [.streamCreated(stream)]
    }

    /// A subscriber decoded `dimensions` of stream `id`: `streamVideoDimensionsChanged` when
    /// that is new for the stream (or the first size decoded), nothing when it is the same or the stream is not (or no
    /// longer) here.
    mutating func decodedVideo(_ dimensions: CallVideoDimensions, of id: FeedID) -> [CallSessionEvent] {
        // The first decoded size counts as a change even when the publisher's description
        // already gave the same one.
        guard var stream = streams[id], stream.videoDimensions != dimensions || !decoded.contains(id) else { return [] }
        decoded.insert(id)
        stream.videoDimensions = dimensions
        streams[id] = stream
        return [.streamVideoDimensionsChanged(stream)]
    }

    /// Removes a stream without an event (the caller reported it), so a later `unpublished`
    /// for it changes nothing.
    mutating func drop(_ id: FeedID) -> CallStream? { streams.removeValue(forKey: id) }

    /// After a rejoin (new signaling session): the feeds there now. A stream still there under
    /// the same id stays silently; one that is gone is destroyed; one under a new id is created.
    mutating func rejoined(_ join: RoomJoin, now: Date) -> [CallSessionEvent] {
        let present = Set(join.feeds.map(\.id))
        let attending = Set(join.attendees.map(\.id))
        var events: [CallSessionEvent] = []
        for id in streams.keys.sorted(by: { $0.rawValue < $1.rawValue }) where !present.contains(id) {
            feeds[id] = nil
            if let stream = streams.removeValue(forKey: id) { events.append(.streamDestroyed(stream, reason: .publisherLeft)) }
            if !attending.contains(id), let connection = connections.removeValue(forKey: id) { events.append(.connectionDestroyed(connection)) }
        }
        return events + joined(join, now: now)
    }

    /// What the router listed when we joined: its feeds' streams, and every participant there
    /// (publishing or not) connected.
    mutating func joined(_ join: RoomJoin, now: Date) -> [CallSessionEvent] {
        var events = receive(.feedsPublished(join.feeds), now: now)
        for attendee in join.attendees where connections[attendee.id] == nil {
            events += receive(.participantJoined(attendee.id, display: attendee.display), now: now)
        }
        return events
    }

    /// Everything still there, destroyed (the session ended).
    mutating func clear() -> [CallSessionEvent] {
        let events = (streams.values.sorted { $0.streamId < $1.streamId } + [ownStream].compactMap { $0 })
            .map { CallSessionEvent.streamDestroyed($0, reason: .sessionEnded) }
        streams.removeAll()
        connections.removeAll()
        feeds.removeAll()
        hungUp.removeAll()
        ownStream = nil
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
