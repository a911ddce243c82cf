/// A ``Signaling`` with no router: the publication's media connection reaches one subscriber
/// directly (a relayed call between two friends). The session then names that subscriber in the
/// publisher's stats arrays, as a relayed publisher's arrays do (docs/peer-to-peer.md).
package protocol RelayedSignaling: Signaling {
    /// The subscriber our current publication's media connection reaches, once it accepted;
    /// `nil` before.
    func publicationSubscriber() async -> RelayedSubscriber?
    /// Whether that subscriber wants our video now (`false` once its layer policy fell back to
    /// audio: ``Signaling/configure(_:streams:)`` with `send: false` on its side); `true`
    /// before it said, and without a publication.
    func publicationSubscriberWantsVideo() async -> Bool
}

/// Who a relayed publication's media connection reaches.
package struct RelayedSubscriber: Hashable, Sendable {
    /// The subscriber's connection (its participant id).
    package var connectionId: String
    /// The subscription's own id (Jingle: the publication session's `sid`).
    package var subscriberId: String

    package init(connectionId: String, subscriberId: String) {
        self.connectionId = connectionId
        self.subscriberId = subscriberId
    }
}

/// A ``Signaling`` with no router whose publication reaches each subscriber over a media
/// connection of its own (a relayed call of several friends, a mesh): the session publishes
/// one peer connection per participant, each offered in a session of its own.
///
/// The participants are the room's (``RoomJoin/attendees``, then
/// ``SignalingEvent/participantJoined(_:display:)`` / ``SignalingEvent/participantLeft(_:)``);
/// a subscriber that ends its session (stops subscribing) is a
/// ``SignalingEvent/hangup(_:reason:)`` on that session's handle. ``Signaling/publish(offer:)``
/// is not used.
package protocol MeshSignaling: Signaling {
    /// Opens a publication session towards participant `subscriber`: its handle (for our
    /// candidates and its events) and the names the publisher's stats arrays give it. Nothing
    /// is sent yet.
    func openPublication(to subscriber: FeedID) async throws -> MeshPublicationLink
    /// Sends `offer` on the session `handle`; returns the subscriber's answer once it accepted.
    func offerPublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription
    /// Restarts ICE on the session `handle` only (``Signaling/restartPublisherIce(offer:)`` for
    /// one subscriber): sends `offer` (made with an ICE restart) there and returns the
    /// subscriber's answer.
    func restartPublicationIce(offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription
    /// Publishes again towards the subscriber of session `handle` on a new peer connection: a
    /// new session carrying `offer` replaces that one (the subscriber keeps the stream);
    /// returns the new session's link and the subscriber's answer.
    func replacePublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> ReplacedPublication
    /// Ends the session `handle` (idempotent).
    func closePublication(_ handle: RouterHandleID) async
    /// Whether the subscriber of session `handle` wants our video now (`false` once its layer
    /// policy fell back to audio: ``Signaling/configure(_:streams:)`` with `send: false` on its
    /// side); `true` for an unknown handle.
    func subscriberWantsVideo(on handle: RouterHandleID) async -> Bool
}

/// The new session of a replaced mesh publication, and the subscriber's answer.
package struct ReplacedPublication: Hashable, Sendable {
    /// The new session.
    package var link: MeshPublicationLink
    /// The subscriber's answer to the new offer.
    package var answer: SessionDescription

    package init(link: MeshPublicationLink, answer: SessionDescription) {
        self.link = link
        self.answer = answer
    }
}

/// A relayed ``Signaling`` (no router) whose subscriptions are replaced by their publisher: a
/// subscriber cannot open a connection to a publisher by itself, it asks for one.
package protocol SubscriptionReplacing: Signaling {
    /// Asks the publisher of subscription `handle` for a new connection in place of that one
    /// (its ICE restarts did not bring media back) and returns the publisher's new offer, on a
    /// new handle, once it came; a replacement the publisher had already sent is returned at
    /// once. The publication stays published meanwhile.
    func replaceSubscription(_ handle: RouterHandleID) async throws -> SubscriptionOffer
}

/// One publication session of a ``MeshSignaling``: where it goes and how the stats name it.
package struct MeshPublicationLink: Hashable, Sendable {
    /// The session's handle: our candidates go there, its events name it.
    package var handle: RouterHandleID
    /// The subscriber it reaches, with the session's id.
    package var subscriber: RelayedSubscriber

    package init(handle: RouterHandleID, subscriber: RelayedSubscriber) {
        self.handle = handle
        self.subscriber = subscriber
    }
}
