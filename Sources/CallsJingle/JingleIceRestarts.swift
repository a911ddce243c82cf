import Calls
import Jingle
import XMPP

/// What the ICE restarts and the trickled candidates of a call's Jingle sessions need to
/// remember, by session id: the accepted transports of our publications and the restarts
/// waiting for their answer; the candidates of our subscriptions held until their answer is
/// given, and the publishers' last restart offers. One value serves a call of two (two
/// sessions) and a mesh (two sessions per member).
struct JingleIceRestarts: Sendable {
    /// The subscriber's `session-accept` of each publication of ours (its transports give the
    /// base of each restart answer).
    var publicationAccepts: [String: JingleSession] = [:]
    /// Our publications' restarts that wait for the subscriber's credentials.
    var pending: [String: PendingRestart] = [:]
    /// Restarts made of each publication of ours (each raises the answer's `o=` version).
    var publicationRestarts: [String: UInt64] = [:]
    /// The publisher's candidates of each subscription of ours, until our answer is set in the
    /// engine.
    var heldSubscriptionCandidates: [String: [IceCandidate]] = [:]
    /// Each publisher's last restart offer of its publication: its credentials (a repeat is
    /// ignored) and when it came.
    var lastOffers: [String: (credentials: [Credentials], at: ContinuousClock.Instant)] = [:]
    /// Restarts of each publisher's publication received (each raises the offer's `o=` version).
    var subscriptionRestarts: [String: UInt64] = [:]
    /// Restart signals that fit no session state (counted, acknowledged, not acted on).
    var ignored = 0
    /// Watches the XMPP stream: each time it is back, every session restarts.
    var streamWatch: Task<Void, Never>?
    /// Restarts made because the XMPP stream came back.
    var afterStreamReturns = 0

    /// Our restart offer, and whoever waits for its answer.
    struct PendingRestart: Sendable {
        let offer: JingleSession
        var waiter: CheckedContinuation<Result<SessionDescription, any Error>, Never>?
        var result: Result<SessionDescription, any Error>?
    }

    /// One content's new ICE credentials (XEP-0176 transport `ufrag` and `pwd`).
    struct Credentials: Hashable, Sendable {
        var contentName: String
        var usernameFragment: String
        var password: String
    }

    /// Forgets session `sid` (terminated, or its member left); returns the waiter of its
    /// restart, if one waits (the caller fails it).
    mutating func forget(_ sid: String) -> CheckedContinuation<Result<SessionDescription, any Error>, Never>? {
        publicationAccepts[sid] = nil
        publicationRestarts[sid] = nil
        heldSubscriptionCandidates[sid] = nil
        lastOffers[sid] = nil
        subscriptionRestarts[sid] = nil
        return pending.removeValue(forKey: sid)?.waiter
    }
}

/// One Jingle session of a call as its ICE restarts see it.
struct JingleRestartSession: Sendable {
    /// Whose publication it carries.
    enum Direction: Sendable {
        /// Ours: we are its initiator and restart it; the member asks with a request.
        case publication
        /// The member's: it restarts it; we answer and ask.
        case subscription
    }

    let sid: String
    /// The member's device at the other end.
    let device: JID
    /// The handle the call layer knows it by.
    let handle: RouterHandleID
    let direction: Direction
    /// The initiator's contents (our offer, or the member's).
    let offer: JingleSession
    /// Subscription: our answer is set (the member's candidates need no holding).
    var answered = false
    /// Subscription: our `session-accept` went (restarts may begin).
    var accepted = false
}
