import Calls
import Jingle
import XMPP
import XMPPClient

// MARK: - Replacing a connection (JingleSessionReplacing.swift)

extension JingleMeshCallSignaling: JingleSessionReplacing, SubscriptionReplacing {
    /// Replacements and replacement requests refused (`item-not-found`, or
    /// `service-unavailable` from someone who is not a friend) and not acted on: for a session
    /// that is not the sender's, or from a device not in the call.
    public var refusedReplacements: Int { replacements.refused }

    /// Our sessions replaced because their member asked (``SignalingEvent/replacementRequested(_:)``).
    public var replacementRequests: Int { replacements.requested }

    func subscriptionHandle(forSession sid: String) -> RouterHandleID { Self.subscriptionHandle(sid) }

    /// Publishes `offer` (a new peer connection's) towards the member of session `handle` in a
    /// new session replacing that one: its `session-initiate` (fresh sid, `<replaces/>`), the
    /// old session's `session-terminate` (`alternative-session`); returns the new session's
    /// link and the member's `session-accept` (within ``answerTimeout``). What the member asked
    /// of the old session (its audio fallback) starts afresh, as its new subscription does.
    package func replacePublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> ReplacedPublication {
        guard !ended, let old = publications.values.first(where: { Self.publicationHandle($0.sid) == handle }) else {
            throw SignalingError(sessionLost: ended, "replacePublication: no publication session \(handle)")
        }
        let device = old.device
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        let sid = "\(callID ?? "call")-\(JingleCallSignaling.randomToken())"
        beginReplacement(of: old.sid, by: sid, device: device)
        publications[old.sid] = nil
        old.answerWaiter?.resume(returning: .failure(SignalingError("offerPublication: replaced by a new session")))
        publications[sid] = MeshPublicationSession(sid: sid, device: device, offer: session)
        try await sendReplacement(of: old.sid, sid: sid, session: session, initiator: own?.description, to: device)
        let answer = try await publicationAnswer(sid: sid, from: device)
        let link = MeshPublicationLink(handle: Self.publicationHandle(sid), subscriber: RelayedSubscriber(connectionId: device.description, subscriberId: sid))
        return ReplacedPublication(link: link, answer: answer)
    }

    /// The member's new session replaces its publication `old`; returns whether we were
    /// subscribed to it.
    func adoptReplacement(_ request: JingleRequest, of old: String, from device: JID) -> Bool {
        let subscribed = memberPublications[device]?.subscribed ?? false
        memberPublications[device] = FriendPublication(sid: request.sessionID, offer: request.session)
        wakeOfferWaiters()
        return subscribed
    }

    func subscribeToReplacement(sid: String) throws -> SubscriptionOffer {
        guard let (device, found) = memberPublications.first(where: { $0.value.sid == sid }), !found.subscribed else {
            throw SignalingError(routerCode: 428, "replaceSubscription: session \(sid) is gone or taken")
        }
        memberPublications[device]?.subscribed = true
        let sdp = try found.offer.sdp(writtenBy: .initiator)
        return SubscriptionOffer(handle: Self.subscriptionHandle(sid), offer: SessionDescription(kind: .offer, sdp: sdp))
    }

    /// Asks the member for a new session in place of its publication's (`<replace-session/>`)
    /// and returns its offer once it came (at once when it came first). Its publication stays.
    package func replaceSubscription(_ handle: RouterHandleID) async throws -> SubscriptionOffer {
        try await replaceSubscription(on: handle)
    }
}
