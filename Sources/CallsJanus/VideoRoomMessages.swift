import Calls
import RTCStats

/// One media section a VideoRoom participant publishes.
public struct VideoRoomPublishedStream: Sendable, Hashable {
    /// `audio`, `video` or `data`.
    public var type: String
    /// The publisher's mid for it.
    public var mid: String
    /// The codec (`vp8`, `opus`, ...), when announced.
    public var codec: String?
    /// The publisher's description of the stream, when set.
    public var description: String?
    /// Whether the publisher sends simulcast on it.
    public var simulcast: Bool
    /// Whether the publisher disabled it.
    public var disabled: Bool

    init(_ value: JSONValue) {
        type = value["type"]?.string ?? ""
        mid = value["mid"]?.string ?? ""
        codec = value["codec"]?.string
        description = value["description"]?.string
        simulcast = value["simulcast"]?.bool ?? false
        disabled = value["disabled"]?.bool ?? false
    }
}

/// A participant publishing in a VideoRoom (a "feed").
public struct VideoRoomFeed: Sendable, Hashable {
    /// The feed id (the participant's VideoRoom id).
    public var id: UInt64
    /// Its display name, when set.
    public var display: String?
    /// What it publishes.
    public var streams: [VideoRoomPublishedStream]

    init?(_ value: JSONValue) {
        guard let id = value["id"]?.unsignedInteger else { return nil }
        self.id = id
        display = value["display"]?.string
        streams = (value["streams"]?.array ?? []).map(VideoRoomPublishedStream.init)
    }
}

/// The answer to a publisher-type `join`.
public struct VideoRoomJoined: Sendable, Hashable {
    /// Our participant id (the feed id others subscribe to once we publish).
    public var id: UInt64
    /// Our private id (ties our subscriber handles to this participant).
    public var privateID: UInt64?
    /// The feeds already publishing.
    public var publishers: [VideoRoomFeed]
    /// The participants there that do not publish (`attendees`: only in rooms with
    /// `notify_joining`).
    public var attendees: [VideoRoomAttendee] = []
}

/// A participant of a room that does not publish, as `joined` lists it.
public struct VideoRoomAttendee: Sendable, Hashable {
    /// The participant id.
    public var id: UInt64
    /// Its display name, when it gave one.
    public var display: String?

    init?(_ value: JSONValue) {
        guard let id = value["id"]?.unsignedInteger else { return nil }
        self.id = id
        display = value["display"]?.string
    }
}

/// The `descriptions` of a publisher's `publish` / `configure`: `description` on each audio and
/// video mid of `offer` (its `a=mid:` lines).
struct VideoRoomDescriptions {
    static func json(_ description: String, offer: SessionDescription) -> JSONValue {
        .array(mediaMids(offer.sdp).map { .object([StatsField("mid", .string($0)), StatsField("description", .string(description))]) })
    }

    /// The mids of the audio and video sections of `sdp`, in order.
    static func mediaMids(_ sdp: String) -> [String] {
        var mids: [String] = []
        var inMedia = false
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") { inMedia = line.hasPrefix("m=audio") || line.hasPrefix("m=video") }
            if inMedia, line.hasPrefix("a=mid:") { mids.append(String(line.dropFirst("a=mid:".count))) }
        }
        return mids
    }
}

/// The answer to a subscriber-type `join` (`attached`): the streams and Janus' offer.
public struct VideoRoomSubscriberJoin: Sendable, Hashable {
    /// The media sections of the subscriber handle.
    public var streams: [VideoRoomSubscribedStream]
    /// Janus' offer, to answer with ``JanusHandle/start(answer:)``.
    public var offer: SessionDescription
}

/// One participant of a room, as `listparticipants` reports it.
public struct VideoRoomParticipant: Sendable, Hashable {
    /// The participant id (the feed id when it publishes).
    public var id: UInt64
    /// Its display name, when it gave one.
    public var display: String?
    /// Whether it publishes now.
    public var publishing: Bool
}

/// One media section of a subscriber handle (`streams` of `attached` / `updated`).
public struct VideoRoomSubscribedStream: Sendable, Hashable {
    /// Our mid for it.
    public var mid: String
    /// `audio`, `video` or `data`.
    public var type: String
    /// The feed it carries.
    public var feedID: UInt64?
    /// The feed's own mid for it.
    public var feedMid: String?

    init(_ value: JSONValue) {
        mid = value["mid"]?.string ?? ""
        type = value["type"]?.string ?? ""
        feedID = value["feed_id"]?.unsignedInteger
        feedMid = value["feed_mid"]?.string
    }
}

/// What a subscriber handle asks for: a feed, or one of its mids.
public struct VideoRoomSubscription: Sendable, Hashable {
    /// The feed.
    public var feed: UInt64
    /// One of its mids, or `nil` for all of them.
    public var mid: String?

    /// Creates a subscription.
    public init(feed: UInt64, mid: String? = nil) {
        self.feed = feed
        self.mid = mid
    }

    var json: JSONValue {
        var fields = [StatsField("feed", .integer(feed))]
        if let mid { fields.append(StatsField("mid", .string(mid))) }
        return .object(fields)
    }
}

extension RouterStreamConfiguration {
    /// One entry of a subscriber `configure`'s `streams`.
    var json: JSONValue {
        var fields = [StatsField("mid", .string(mid))]
        if let send { fields.append(StatsField("send", .bool(send))) }
        if let substream { fields.append(StatsField("substream", .integer(substream))) }
        if let temporal { fields.append(StatsField("temporal", .integer(temporal))) }
        return .object(fields)
    }
}
