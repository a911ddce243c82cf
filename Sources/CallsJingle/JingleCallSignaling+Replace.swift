import Calls
import Jingle
import XMPP
import XMPPClient

// MARK: - Replacing a connection (JingleSessionReplacing.swift)

extension JingleCallSignaling: JingleSessionReplacing, SubscriptionReplacing {
    /// Replacements and replacement requests refused (`item-not-found`, or
    /// `service-unavailable` from someone not in the call) and not acted on: for a session
    /// that is not the sender's, or from a stranger.
    public var refusedReplacements: Int { replacements.refused }

    /// Our publication replaced because the friend asked (``SignalingEvent/replacementRequested(_:)``).
    public var replacementRequests: Int { replacements.requested }

    func subscriptionHandle(forSession sid: String) -> RouterHandleID { Self.subscriptionHandle(sid) }

    /// Our publication in a new session replacing the current one (the first publication when
    /// there is none: an ordinary `session-initiate`).
    func replaceOwnPublication(offer: SessionDescription) async throws -> Republished {
        let device = try requireFriendDevice("republish")
        guard let own else { throw SignalingError(sessionLost: true, "republish: not joined") }
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        let sid = "\(callID ?? "call")-\(Self.randomToken())"
        let old = publication
        if let old { beginReplacement(of: old.sid, by: sid, device: device) }
        publication = OwnPublication(sid: sid, offer: session)
        old?.answerWaiter?.resume(returning: .failure(SignalingError("publish: replaced by a new session")))
        if let old {
            try await sendReplacement(of: old.sid, sid: sid, session: session, initiator: own.description, to: device)
        } else {
            try await setWhenConnected(JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: own.description, session: session).element, to: device)
        }
        let answer = try await publicationAnswer(sid: sid, from: device, step: "republish")
        return Republished(join: RoomJoin(participantID: FeedID(own.description), participantHandle: Self.publicationHandle, feeds: []), answer: answer)
    }

    /// The friend's new session replaces its publication `old`; returns whether we were
    /// subscribed to it.
    func adoptReplacement(_ request: JingleRequest, of old: String, from device: JID) -> Bool {
        let subscribed = friendPublication?.subscribed ?? false
        friendPublication = FriendPublication(sid: request.sessionID, offer: request.session)
        wakeOfferWaiters()
        return subscribed
    }

    func subscribeToReplacement(sid: String) throws -> SubscriptionOffer {
        guard var publication = friendPublication, publication.sid == sid, !publication.subscribed else {
            throw SignalingError(routerCode: 428, "replaceSubscription: \(friend)'s session \(sid) is gone or taken")
        }
        publication.subscribed = true
        friendPublication = publication
        let sdp = try publication.offer.sdp(writtenBy: .initiator)
        return SubscriptionOffer(handle: Self.subscriptionHandle(sid), offer: SessionDescription(kind: .offer, sdp: sdp))
    }

    /// Asks the friend for a new session in place of its publication's (`<replace-session/>`)
    /// and returns its offer once it came (at once when it came first). Its publication stays.
    package func replaceSubscription(_ handle: RouterHandleID) async throws -> SubscriptionOffer {
        try await replaceSubscription(on: handle)
    }
}
