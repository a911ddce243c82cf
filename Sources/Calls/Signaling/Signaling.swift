import CallScopeCore
import Observability

/// The media router's side of a routed call (Janus VideoRoom here), as the call objects need it.
///
/// A router handle is one peer connection on the router's side: the participant handle that
/// joined the room (and publishes), and one handle per subscription, so each subscriber recovers
/// on its own. Offers the router makes later (renegotiation, ICE restart) arrive on ``events``.
public protocol Signaling: Sendable {
    /// Room and handle events, in the order the router delivered them per handle.
    var events: AsyncStream<SignalingEvent> { get }

    /// Joins the room as a participant; returns our participant id and the feeds already there.
    func join(display: String?) async throws -> RoomJoin
    /// Publishes with `offer` on the participant handle; returns the router's answer.
    func publish(offer: SessionDescription) async throws -> SessionDescription
    /// Stops publishing (the participant stays in the room).
    func unpublish() async throws
    /// Restarts the publisher's ICE: sends our `offer` (made with new ICE credentials) on the
    /// participant handle; returns the router's answer.
    func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription
    /// Publishes again on a new participant handle, after the router hung up the publisher's
    /// peer connection (only a new handle works then) or ICE restarts did not bring media back:
    /// the old participant handle leaves, a new one joins, asking for `participantID` again
    /// (the router may give another), and publishes `offer`.
    func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished
    /// Opens a subscription handle for `feed`; returns it with the router's offer.
    func subscribe(to feed: FeedID) async throws -> SubscriptionOffer
    /// Answers the router's (first or later) offer on a subscription handle.
    func start(_ handle: RouterHandleID, answer: SessionDescription) async throws
    /// Asks for an ICE restart on a subscription handle; the new offer arrives on ``events``.
    func restartIce(_ handle: RouterHandleID) async throws
    /// Sets what the router forwards on a subscription handle's media sections (Janus VideoRoom
    /// `configure` with `streams`): pausing or resuming one, its simulcast substream and temporal
    /// layer. The switch itself is reported later as ``SignalingEvent/forwardedLayerChanged(_:mid:substream:temporal:)``.
    func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws
    /// ``configure(_:streams:)``, returning as soon as the router has taken the request, before
    /// its answer (which the returned task awaits, throwing the router's error): requests sent
    /// one after another this way are taken in that order, and a later one need not wait for an
    /// earlier one's answer, which a congested downlink can hold back for many seconds.
    func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error>
    /// Trickles a local candidate on a handle (`nil`: gathering complete).
    func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws
    /// Closes a subscription handle (idempotent).
    func close(_ handle: RouterHandleID) async
    /// Leaves the room and ends the signaling session.
    func leave() async
    /// Sets the text the router shows the other participants for our published media (Janus:
    /// VideoRoom `descriptions`, one per mid): sent with the next publish, and at once while
    /// publishing (the router then announces our feed again). The session encodes our stream's
    /// name, video type, creation time, size and enabled tracks in it.
    func describePublishedStream(_ description: String) async throws
    /// Whether `feed` still publishes, as the router says now; `nil` when this router cannot
    /// tell (the session then trusts that no `unpublished` came).
    func isPublishing(_ feed: FeedID) async throws -> Bool?
}

/// A publishing participant's id in the room (Janus: the feed id, which is the participant id).
public typealias FeedID = Identifier<FeedKind>
/// Marks ids of publishing participants (router feeds).
public enum FeedKind: IdentifierKind {}

/// One peer connection on the router's side (Janus: a plugin handle).
public typealias RouterHandleID = Identifier<RouterHandleKind>
/// Marks ids of router-side peer connections (plugin handles).
public enum RouterHandleKind: IdentifierKind {}

/// A feed as the router announces it.
public struct RouterFeed: Hashable, Sendable {
    /// The publisher's id.
    public var id: FeedID
    /// The display name it joined with.
    public var display: String?
    /// Whether it sends audio.
    public var hasAudio: Bool
    /// Whether it sends video.
    public var hasVideo: Bool
    /// The description of its media (Janus: the video section's, else the audio section's):
    /// a CallScope publisher's encoded stream properties, another client's free text, or `nil`.
    public var mediaDescription: String?

    /// Creates a feed.
    public init(id: FeedID, display: String?, hasAudio: Bool, hasVideo: Bool, mediaDescription: String? = nil) {
        self.id = id
        self.display = display
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.mediaDescription = mediaDescription
    }
}

/// A participant in the room that does not publish, as the router lists it when we join
/// (Janus: `attendees` of `joined`, sent only when the room has `notify_joining`).
public struct RouterAttendee: Hashable, Sendable {
    /// The participant's id.
    public var id: FeedID
    /// The display name it joined with.
    public var display: String?

    /// Creates an attendee.
    public init(id: FeedID, display: String?) {
        self.id = id
        self.display = display
    }
}

/// The answer to ``Signaling/join(display:)``.
public struct RoomJoin: Hashable, Sendable {
    /// Our participant id (our connection id, and our feed id once we publish).
    public var participantID: FeedID
    /// The participant handle (it publishes; its candidates are trickled there).
    public var participantHandle: RouterHandleID
    /// The feeds publishing when we joined.
    public var feeds: [RouterFeed]
    /// The participants there when we joined that do not publish (empty when the router does
    /// not list them).
    public var attendees: [RouterAttendee]

    /// Creates a join result.
    public init(participantID: FeedID, participantHandle: RouterHandleID, feeds: [RouterFeed], attendees: [RouterAttendee] = []) {
        self.participantID = participantID
        self.participantHandle = participantHandle
        self.feeds = feeds
        self.attendees = attendees
    }
}

/// The answer to ``Signaling/republish(offer:display:participantID:)``.
public struct Republished: Hashable, Sendable {
    /// The new participant handle and id (the id is the one asked for when the router allowed it).
    public var join: RoomJoin
    /// The router's answer to the offer.
    public var answer: SessionDescription

    /// Creates a republish result.
    public init(join: RoomJoin, answer: SessionDescription) {
        self.join = join
        self.answer = answer
    }
}

/// A new subscription handle and the router's offer for it.
public struct SubscriptionOffer: Hashable, Sendable {
    /// The handle.
    public var handle: RouterHandleID
    /// The router's offer.
    public var offer: SessionDescription

    /// Creates a subscription offer.
    public init(handle: RouterHandleID, offer: SessionDescription) {
        self.handle = handle
        self.offer = offer
    }
}

/// What the router said, unprompted.
public enum SignalingEvent: Hashable, Sendable {
    /// Feeds started publishing (Janus `publishers`; may repeat known ones).
    case feedsPublished([RouterFeed])
    /// A feed stopped publishing (Janus `unpublished`; duplicates happen).
    case feedUnpublished(FeedID)
    /// A participant joined (Janus `joining`, with `notify_joining`).
    case participantJoined(FeedID, display: String?)
    /// A participant left or was kicked (Janus `leaving` / `kicked`).
    case participantLeft(FeedID)
    /// The router offers (again) on a handle: renegotiation or ICE restart.
    case offer(RouterHandleID, SessionDescription)
    /// The handle's peer connection is up on the router's side (Janus `webrtcup`).
    case mediaUp(RouterHandleID)
    /// The router closed the handle's peer connection; only a new handle works.
    case hangup(RouterHandleID, reason: String)
    /// The signaling session is gone (Janus HTTP 404 / 458): every handle is dead.
    case sessionLost(reason: String)
    /// The router now forwards another simulcast substream or temporal layer on a subscription
    /// handle's media section (Janus `{"videoroom":"event","mid","substream"|"temporal"}`); the
    /// value that did not change is `nil`.
    case forwardedLayerChanged(RouterHandleID, mid: String?, substream: Int?, temporal: Int?)
    /// The other side's ICE candidate for a handle's peer connection, trickled after its
    /// description (a relayed call's friend; a router puts its candidates in its SDP instead);
    /// `nil`: the other side's candidates are complete.
    case remoteCandidate(RouterHandleID, IceCandidate?)
    /// The other side asks for an ICE restart of the handle's peer connection (a relayed
    /// call's subscriber asks the publisher, whose offer makes the restart): it restarts as
    /// when it sees the path lost itself, unless a negotiation or restart is under way.
    case iceRestartRequested(RouterHandleID)
    /// The other side asks for a new peer connection in place of the handle's (a relayed
    /// call's subscriber whose ICE restarts did not bring media back asks its publisher): the
    /// publisher publishes again as after ``hangup(_:reason:)``, and the subscriber's
    /// subscription goes on on the new connection, as the same stream.
    case replacementRequested(RouterHandleID)
}

/// The router refused or could not be reached.
public struct SignalingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The router's own error code (Janus: 426 no such room, 428 no such feed, ...), if any.
    public var routerCode: Int?
    /// Whether the signaling session itself is gone.
    public var sessionLost: Bool
    /// What happened.
    public var message: String

    /// Creates an error.
    public init(routerCode: Int? = nil, sessionLost: Bool = false, _ message: String) {
        self.routerCode = routerCode
        self.sessionLost = sessionLost
        self.message = message
    }

    /// `router error N: message`.
    public var description: String {
        (routerCode.map { "router error \($0): " } ?? "") + message
    }
}
