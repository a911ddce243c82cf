import Observability
import Calls
import Foundation
import RTCStats

/// ``Signaling`` over a Janus VideoRoom: one Janus session, a participant handle that joins the
/// room (with `notify_joining` in the room's config, participants joining are announced) and
/// publishes, and one subscriber handle per subscription.
public actor JanusSignaling: Signaling {
    /// Room and handle events, each handle's in poll order.
    public nonisolated let events: AsyncStream<SignalingEvent>
    /// The Janus API URL.
    public nonisolated let url: URL
    /// The VideoRoom room.
    public nonisolated let room: UInt64

    private let continuation: AsyncStream<SignalingEvent>.Continuation
    private var session: JanusSession?
    private var participant: JanusHandle?
    private var privateID: UInt64?
    private var subscriptions: [RouterHandleID: JanusHandle] = [:]
    private var forwarders: [Task<Void, Never>] = []
    private var lostReported = false
    /// What ``describePublishedStream(_:)`` set: sent with every publish.
    private var publishedDescription: String?
    /// The audio and video mids of our last published offer, while published.
    private var publishedMids: [String] = []

    /// Signaling for `room` on the Janus at `url` (e.g. `http://127.0.0.1:8088/janus`).
    public init(url: URL, room: UInt64) {
        self.url = url
        self.room = room
        (events, continuation) = AsyncStream<SignalingEvent>.makeStream()
    }

    /// Creates the Janus session, attaches the participant handle and joins the room.
    public func join(display: String?) async throws -> RoomJoin {
        do {
            // After a lost session (a rejoin) the old handles are dead: start afresh.
            subscriptions.removeAll()
            publishedMids = []
            lostReported = false
            let session = try await JanusSession.create(url: url)
            self.session = session
            let handle = try await session.attach(opaqueID: "callscope-participant")
            participant = handle
            forward(handle, participant: true)
            let joined = try await handle.joinAsPublisher(room: room, display: display)
            privateID = joined.privateID
            return RoomJoin(participantID: FeedID("\(joined.id)"), participantHandle: RouterHandleID("\(handle.id)"),
                            feeds: joined.publishers.map(RouterFeed.init),
                            attendees: joined.attendees.map { RouterAttendee(id: FeedID("\($0.id)"), display: $0.display) })
        } catch {
            throw SignalingError(error)
        }
    }

    /// Publishes with `offer` on the participant handle.
    public func publish(offer: SessionDescription) async throws -> SessionDescription {
        guard let participant else { throw SignalingError(sessionLost: true, "publish before join") }
        do {
            let answer = try await participant.publish(offer: offer, description: publishedDescription)
            publishedMids = VideoRoomDescriptions.mediaMids(offer.sdp)
            return answer
        } catch {
            throw SignalingError(error)
        }
    }

    /// `unpublish` on the participant handle.
    public func unpublish() async throws {
        publishedMids = []
        guard let participant else { return }
        do {
            _ = try await participant.message(.object(["request": .string("unpublish")]))
        } catch {
            throw SignalingError(error)
        }
    }

    /// Publisher `configure` with the ICE-restart offer on the participant handle.
    public func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription {
        guard let participant else { throw SignalingError(sessionLost: true, "ICE restart before join") }
        do {
            return try await participant.reconfigurePublisher(offer: offer)
        } catch {
            throw SignalingError(error)
        }
    }

    /// The old participant handle leaves and detaches; a new one joins (asking for the old id,
    /// else taking a new one) and publishes.
    public func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
        guard let session else { throw SignalingError(sessionLost: true, "republish before join") }
        do {
            if let old = participant {
                participant = nil
                _ = try? await old.leave()
                await old.detach()
            }
            let handle = try await session.attach(opaqueID: "callscope-participant")
            participant = handle
            forward(handle, participant: true)
            let joined: VideoRoomJoined
            do {
                joined = try await handle.joinAsPublisher(room: room, display: display, id: UInt64(participantID.rawValue))
            } catch where error.routerCode == 436 {       // the id is still taken: Janus chooses
                joined = try await handle.joinAsPublisher(room: room, display: display)
            }
            privateID = joined.privateID
            let answer = try await handle.publish(offer: offer, description: publishedDescription)
            publishedMids = VideoRoomDescriptions.mediaMids(offer.sdp)
            return Republished(join: RoomJoin(participantID: FeedID("\(joined.id)"), participantHandle: RouterHandleID("\(handle.id)"),
                                              feeds: joined.publishers.map(RouterFeed.init),
                                              attendees: joined.attendees.map { RouterAttendee(id: FeedID("\($0.id)"), display: $0.display) }),
                               answer: answer)
        } catch {
            throw SignalingError(error)
        }
    }

    /// Keeps `description` for every later publish and, while publishing, sets it at once
    /// (publisher `configure` with `descriptions`; Janus announces our feed again).
    public func describePublishedStream(_ description: String) async throws {
        guard publishedDescription != description else { return }
        publishedDescription = description
        guard let participant, !publishedMids.isEmpty else { return }
        do {
            try await participant.describe(description, mids: publishedMids)
        } catch {
            throw SignalingError(error)
        }
    }

    /// Whether `feed` publishes now, from `listparticipants` (`publisher`); `false` when it is
    /// no longer in the room.
    public func isPublishing(_ feed: FeedID) async throws -> Bool? {
        guard let participant, let id = UInt64(feed.rawValue) else { return nil }
        do {
            return try await participant.listParticipants(room: room).first { $0.id == id }?.publishing ?? false
        } catch {
            throw SignalingError(error)
        }
    }

    /// Attaches a subscriber handle and joins it as subscriber of all of `feed`'s streams.
    public func subscribe(to feed: FeedID) async throws -> SubscriptionOffer {
        guard let session else { throw SignalingError(sessionLost: true, "subscribe before join") }
        guard let feedNumber = UInt64(feed.rawValue) else { throw SignalingError(routerCode: 428, "feed id \(feed) is not a Janus id") }
        var attached: JanusHandle?
        do {
            let handle = try await session.attach(opaqueID: "callscope-subscriber")
            attached = handle
            let id = RouterHandleID("\(handle.id)")
            subscriptions[id] = handle
            forward(handle, participant: false)
            let joined = try await handle.joinAsSubscriber(room: room, subscriptions: [VideoRoomSubscription(feed: feedNumber)],
                                                           privateID: privateID)
            return SubscriptionOffer(handle: id, offer: joined.offer)
        } catch {
            if let attached {
                subscriptions[RouterHandleID("\(attached.id)")] = nil
                await attached.detach()
            }
            throw SignalingError(error)
        }
    }

    /// `start` with our answer.
    public func start(_ handle: RouterHandleID, answer: SessionDescription) async throws {
        guard let subscription = subscriptions[handle] else { throw SignalingError("no subscription handle \(handle)") }
        do {
            try await subscription.start(answer: answer)
        } catch {
            throw SignalingError(error)
        }
    }

    /// `configure` with `restart: true`; the offer (with the reply or later) goes to ``events``.
    public func restartIce(_ handle: RouterHandleID) async throws {
        guard let subscription = subscriptions[handle] else { throw SignalingError("no subscription handle \(handle)") }
        do {
            let reply = try await subscription.configure([], restart: true)
            if let offer = reply.jsep, offer.kind == .offer { continuation.yield(.offer(handle, offer)) }
        } catch {
            throw SignalingError(error)
        }
    }

    /// Subscriber `configure` with `streams` (pause/resume, substream, temporal per mid).
    public func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {
        guard let subscription = subscriptions[handle] else { throw SignalingError("no subscription handle \(handle)") }
        do {
            try await subscription.configure(streams)
        } catch {
            throw SignalingError(error)
        }
    }

    /// Subscriber `configure`, returning once Janus took it (its `ack`, over HTTP the POST's own
    /// reply); the task finishes with the answer from the long poll, which a congested downlink
    /// can hold back for many seconds behind the other events.
    public func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        guard let subscription = subscriptions[handle] else { throw SignalingError("no subscription handle \(handle)") }
        let posted: JanusPostedMessage
        do {
            posted = try await subscription.postConfigure(streams)
        } catch {
            throw SignalingError(error)
        }
        return Task {
            do {
                _ = try await subscription.session.answer(to: posted, timeout: .seconds(20))
            } catch {
                throw SignalingError(error)
            }
        }
    }

    /// Trickles on the participant or a subscription handle.
    public func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws {
        let target = subscriptions[handle] ?? (participant.map { "\($0.id)" == handle.rawValue ? $0 : nil } ?? nil)
        guard let target else { return }
        do {
            try await target.trickle(candidate)
        } catch {
            throw SignalingError(error)
        }
    }

    /// Detaches a subscription handle.
    public func close(_ handle: RouterHandleID) async {
        guard let subscription = subscriptions.removeValue(forKey: handle) else { return }
        await subscription.detach()
    }

    /// Leaves the room and destroys the Janus session.
    public func leave() async {
        if let participant { _ = try? await participant.leave() }
        await session?.destroy()
        for task in forwarders { task.cancel() }
        session = nil
        participant = nil
        subscriptions.removeAll()
        continuation.finish()
    }

    // MARK: - Events

    private func forward(_ handle: JanusHandle, participant: Bool) {
        let id = RouterHandleID("\(handle.id)")
        let events = handle.events
        forwarders.append(Task { [weak self] in
            for await event in events { await self?.translate(event, from: id, participant: participant) }
        })
    }

    private func translate(_ event: JanusEvent, from handle: RouterHandleID, participant: Bool) {
        switch event {
        case .plugin(let data, let jsep):
            if participant {
                for roomEvent in Self.roomEvents(data) { continuation.yield(roomEvent) }
            } else {
                if let jsep, jsep.kind == .offer { continuation.yield(.offer(handle, jsep)) }
                if let layer = Self.forwardedLayer(data, handle: handle) { continuation.yield(layer) }
            }
        case .webrtcUp:
            continuation.yield(.mediaUp(handle))
        case .hangup(let reason):
            // The participant handle's hangup is the publisher's: it publishes again.
            continuation.yield(.hangup(handle, reason: reason))
        case .sessionLost(let error):
            guard !lostReported else { return }
            lostReported = true
            continuation.yield(.sessionLost(reason: error.message))
        case .media, .slowLink, .detached, .other:
            break
        }
    }

    /// A simulcast switch on a subscription handle (`{"videoroom":"event","mid","substream"}` or
    /// `"temporal"`), or `nil`.
    static func forwardedLayer(_ data: JSONValue, handle: RouterHandleID) -> SignalingEvent? {
        guard data["videoroom"]?.string == "event" else { return nil }
        func layer(_ key: String) -> Int? {
            guard let value = data[key]?.number, value == value.rounded(), (0...2).contains(value) else { return nil }
            return Int(value)
        }
        let substream = layer("substream"), temporal = layer("temporal")
        guard substream != nil || temporal != nil else { return nil }
        return .forwardedLayerChanged(handle, mid: data["mid"]?.string, substream: substream, temporal: temporal)
    }

    /// The room events in one VideoRoom `event` on the participant handle.
    static func roomEvents(_ data: JSONValue) -> [SignalingEvent] {
        guard data["videoroom"]?.string == "event" else { return [] }
        var events: [SignalingEvent] = []
        if let joining = data["joining"], let id = joining["id"]?.unsignedInteger {
            events.append(.participantJoined(FeedID("\(id)"), display: joining["display"]?.string))
        }
        if let publishers = data["publishers"]?.array {
            events.append(.feedsPublished(publishers.compactMap(VideoRoomFeed.init).map(RouterFeed.init)))
        }
        // Our own unpublish/leave replies say "ok"; others' carry their id.
        if let id = data["unpublished"]?.unsignedInteger { events.append(.feedUnpublished(FeedID("\(id)"))) }
        if let id = data["leaving"]?.unsignedInteger { events.append(.participantLeft(FeedID("\(id)"))) }
        if let id = data["kicked"]?.unsignedInteger { events.append(.participantLeft(FeedID("\(id)"))) }
        return events
    }
}

extension RouterFeed {
    init(_ feed: VideoRoomFeed) {
        let live = feed.streams.filter { !$0.disabled }
        self.init(id: FeedID("\(feed.id)"), display: feed.display,
                  hasAudio: live.contains { $0.type == "audio" }, hasVideo: live.contains { $0.type == "video" },
                  mediaDescription: (live.first { $0.type == "video" } ?? live.first { $0.type == "audio" })?.description)
    }
}

extension SignalingError {
    init(_ error: any Error) {
        if let error = error as? SignalingError {
            self = error
        } else if let error = error as? JanusError {
            self.init(routerCode: error.routerCode, sessionLost: error.code == .sessionLost, error.description)
        } else {
            self.init("\(error)")
        }
    }
}
