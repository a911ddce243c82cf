import Calls
import RTCStats

/// The VideoRoom requests, typed.
extension JanusHandle {
    /// Joins `room` as a participant (`ptype: publisher`; it need not publish). Room events
    /// (`publishers`, `unpublished`, `leaving`, `joining`) then arrive on ``events``.
    /// - Parameter id: the participant id to ask for (Janus refuses one in use, error 436);
    ///   `nil` lets Janus choose.
    public func joinAsPublisher(room: UInt64, display: String?, id: UInt64? = nil) async throws(JanusError) -> VideoRoomJoined {
        var body: JSONValue = .object(["request": .string("join"), "ptype": .string("publisher"), "room": .integer(room)])
        if let display { body = body.setting("display", .string(display)) }
        if let id { body = body.setting("id", .integer(id)) }
        let reply = try await message(body)
        guard reply.data["videoroom"]?.string == "joined", let id = reply.data["id"]?.unsignedInteger else {
            throw JanusError(.malformedReply, "join: expected videoroom joined, got \(JSONWriter.string(reply.data).prefix(200))")
        }
        return VideoRoomJoined(id: id, privateID: reply.data["private_id"]?.unsignedInteger,
                               publishers: (reply.data["publishers"]?.array ?? []).compactMap(VideoRoomFeed.init),
                               attendees: (reply.data["attendees"]?.array ?? []).compactMap(VideoRoomAttendee.init))
    }

    /// Publishes with `offer`; returns Janus' answer. `description`, when given, is set on each
    /// audio and video mid of the offer (`descriptions`), for the other participants to read.
    public func publish(offer: SessionDescription, audio: Bool = true, video: Bool = true, data: Bool = true,
                        description: String? = nil) async throws(JanusError) -> SessionDescription {
        var body: JSONValue = .object(["request": .string("publish"), "audio": .bool(audio), "video": .bool(video), "data": .bool(data)])
        if let description { body = body.setting("descriptions", VideoRoomDescriptions.json(description, offer: offer)) }
        let reply = try await message(body, jsep: offer)
        guard let answer = reply.jsep, answer.kind == .answer else {
            throw JanusError(.malformedReply, "publish: no JSEP answer in \(JSONWriter.string(reply.data).prefix(200))")
        }
        return answer
    }

    /// Publisher `configure` with a new offer (an ICE restart or a renegotiation); returns
    /// Janus' answer.
    public func reconfigurePublisher(offer: SessionDescription) async throws(JanusError) -> SessionDescription {
        let reply = try await message(.object(["request": .string("configure")]), jsep: offer)
        guard let answer = reply.jsep, answer.kind == .answer else {
            throw JanusError(.malformedReply, "configure: no JSEP answer in \(JSONWriter.string(reply.data).prefix(200))")
        }
        return answer
    }

    /// Publisher `configure` without SDP setting `description` on each of `mids` (Janus then
    /// announces the feed again to the room).
    public func describe(_ description: String, mids: [String]) async throws(JanusError) {
        let descriptions: JSONValue = .array(mids.map { .object([StatsField("mid", .string($0)), StatsField("description", .string(description))]) })
        _ = try await message(.object(["request": .string("configure"), "descriptions": descriptions]))
    }

    /// Joins `room` as a subscriber of `subscriptions`; returns the streams and Janus' offer.
    public func joinAsSubscriber(room: UInt64, subscriptions: [VideoRoomSubscription], privateID: UInt64? = nil) async throws(JanusError) -> VideoRoomSubscriberJoin {
        var body: JSONValue = .object(["request": .string("join"), "ptype": .string("subscriber"), "room": .integer(room),
                                        "streams": .array(subscriptions.map(\.json))])
        if let privateID { body = body.setting("private_id", .integer(privateID)) }
        let reply = try await message(body)
        guard reply.data["videoroom"]?.string == "attached", let offer = reply.jsep, offer.kind == .offer else {
            throw JanusError(.malformedReply, "subscriber join: expected attached with an offer, got \(JSONWriter.string(reply.data).prefix(200))")
        }
        return VideoRoomSubscriberJoin(streams: (reply.data["streams"]?.array ?? []).map(VideoRoomSubscribedStream.init), offer: offer)
    }

    /// Starts (or, after a renegotiation, continues) a subscription with our answer.
    public func start(answer: SessionDescription) async throws(JanusError) {
        _ = try await message(.object(["request": .string("start")]), jsep: answer)
    }

    /// Subscriber `configure`: layer choice and pausing per mid, and `restart: true` for an ICE
    /// restart (Janus then sends a new offer on ``events``, or with the reply).
    @discardableResult
    public func configure(_ streams: [RouterStreamConfiguration], restart: Bool = false) async throws(JanusError) -> JanusReply {
        try await message(Self.configureBody(streams, restart: restart))
    }

    /// Sends a subscriber `configure` and returns once Janus took it (its `ack`); the answer is
    /// ``JanusSession/answer(to:timeout:)``'s.
    func postConfigure(_ streams: [RouterStreamConfiguration]) async throws(JanusError) -> JanusPostedMessage {
        try await session.post(handle: id, body: Self.configureBody(streams, restart: false), jsep: nil)
    }

    private static func configureBody(_ streams: [RouterStreamConfiguration], restart: Bool) -> JSONValue {
        var body: JSONValue = .object(["request": .string("configure")])
        if !streams.isEmpty { body = body.setting("streams", .array(streams.map(\.json))) }
        if restart { body = body.setting("restart", .bool(true)) }
        return body
    }

    /// The participants of `room` (id, display, whether publishing).
    public func listParticipants(room: UInt64) async throws(JanusError) -> [VideoRoomParticipant] {
        let reply = try await message(.object(["request": .string("listparticipants"), "room": .integer(room)]))
        return (reply.data["participants"]?.array ?? []).compactMap { participant in
            guard let id = participant["id"]?.unsignedInteger else { return nil }
            return VideoRoomParticipant(id: id, display: participant["display"]?.string, publishing: participant["publisher"]?.bool ?? false)
        }
    }

    /// Leaves the room (publisher or subscriber handle).
    public func leave() async throws(JanusError) {
        _ = try await message(.object(["request": .string("leave")]))
    }
}
