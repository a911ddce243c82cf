import Calls
import Jingle
import XMPP
import XMPPClient

/// A Jingle call signalling whose publications are replaced by new sessions when their peer
/// connection is (``JingleSessionReplaceShape``): the call of two (``JingleCallSignaling``)
/// and the mesh (``JingleMeshCallSignaling``) share it, each keeping its sessions its own way.
///
/// - *The publisher replaces* (its ICE restarts did not bring media back, its engine lost the
///   peer connection, or the subscriber asked): a new session with a fresh sid and the new
///   offer, marked as replacing the old one, then the old one terminated
///   (`alternative-session`). Its restarts and held candidates are forgotten.
/// - *The subscriber* takes the new session in place of the old one: the same feed (no
///   `feedUnpublished` / `feedsPublished`), and its subscription to the old one is told by a
///   ``SignalingEvent/hangup(_:reason:)`` of the old handle, after which the session subscribes
///   to the new one (``SubscriptionReplacing/replaceSubscription(_:)`` returns it at once).
/// - *The subscriber asks* (its ICE restarts did not bring media back):
///   ``SubscriptionReplacing/replaceSubscription(_:)`` sends `<replace-session/>` and waits for
///   the publisher's new session; the publisher's signalling turns the request into
///   ``SignalingEvent/replacementRequested(_:)`` of its publication.
/// - A replacement or request for a session that is not the sender's, or from someone not in
///   the call, is refused (`item-not-found`, or `service-unavailable` from a stranger) and
///   counted (``JingleSessionReplacements/refused``); the call goes on.
protocol JingleSessionReplacing: JingleIceRestarting {
    var replacements: JingleSessionReplacements { get set }
    /// The sessions by sid, for the IQ handler.
    var sessionDirectory: JingleSessionDirectory { get }
    /// The handle of our subscription to the member's publication `sid`.
    func subscriptionHandle(forSession sid: String) -> RouterHandleID
    /// The member's publication `old` is replaced by `request`'s session: keep the new one in
    /// its place (not subscribed yet); returns whether we were subscribed to the old one.
    func adoptReplacement(_ request: JingleRequest, of old: String, from device: JID) -> Bool
    /// Subscribes to the member's publication `sid` (a replacement): its offer, on its handle.
    func subscribeToReplacement(sid: String) throws -> SubscriptionOffer
}

/// How long a subscriber waits for its publisher's new session.
enum JingleReplacementTiming {
    /// Past two of the publisher's ICE restart steps: a publisher that answers at all has sent
    /// its new session by then; shorter than the reconnect window (30 s), which ends it anyway.
    static let subscriberWait: Duration = .seconds(15)
}

// MARK: - The directory the IQ handler reads

extension JingleSessionReplacing {
    /// Every session of the call with its member's device, the replaced ones included (a late
    /// request for one is acknowledged).
    func updateSessionDirectory() {
        var sessions: [String: JID] = [:]
        for session in restartSessions() { sessions[session.sid] = session.device }
        for (sid, replaced) in replacements.publications { sessions[sid] = replaced.device }
        for (sid, replaced) in replacements.subscriptions { sessions[sid] = replaced.device }
        sessionDirectory.set(sessions)
    }
}

/// The IQ handler's check, before the call's actor sees a replacement: `nil` to take it, or the
/// stanza error condition refusing it.
enum JingleReplacementCheck {
    /// The session `payload` (a `<jingle/>`) replaces or asks to replace, if it is one of those.
    static func replacedSession(in payload: XMPPElement) -> String? {
        if let old = JingleSessionReplaceShape.replacedSession(of: payload) { return old }
        return JingleSessionReplaceShape.isRequest(payload) ? payload.attributes["sid"] ?? "" : nil
    }

    /// `item-not-found` (XEP-0166's unknown-session) when session `old` is not one of the
    /// call's with `device`.
    static func refusal(replacing old: String, from device: JID, in directory: JingleSessionDirectory) -> String? {
        directory.contains(old, from: device) ? nil : "item-not-found"
    }
}

// MARK: - The publisher

extension JingleSessionReplacing {
    /// Our publication `old` is being replaced by `new`: its restarts end, a late request for it
    /// is acknowledged and not acted on.
    func beginReplacement(of old: String, by new: String, device: JID) {
        forgetRestarts(of: old)
        replacements.publications[old] = JingleSessionReplacements.Replaced(new: new, device: device)
        updateSessionDirectory()
    }

    /// Sends the new session's `session-initiate` (marked as replacing `old`), then ends `old`
    /// with `alternative-session`. The initiate waits for the XMPP stream when it is down.
    func sendReplacement(of old: String, sid: String, session: JingleSession, initiator: String?, to device: JID) async throws {
        try await setWhenConnected(JingleSessionReplaceShape.initiate(sid: sid, replacing: old, initiator: initiator, session: session), to: device)
        try? await client.set(JingleSessionReplaceShape.terminate(sid: old, replacedBy: sid), to: device)
    }

    /// The member asks for a new session in place of our publication `sid`: a
    /// ``SignalingEvent/replacementRequested(_:)`` of its handle, unless it is replaced already
    /// (the new one is on its way). Another's is refused, counted.
    func receiveReplacementRequest(sid: String, from device: JID) {
        if let replaced = replacements.publications[sid], replaced.device == device { return }
        guard let target = restartSession(sid: sid), target.direction == .publication, target.device == device,
              restarts.publicationAccepts[sid] != nil else {
            replacements.refused += 1
            return
        }
        replacements.requested += 1
        eventSink.yield(.replacementRequested(target.handle))
    }
}

// MARK: - The subscriber

extension JingleSessionReplacing {
    /// The member's `session-initiate` replacing its publication `old`: the new session takes
    /// its place (the same feed); our subscription to the old one is told by a hangup of its
    /// handle, or, when it already asked, its wait ends. One for another's session is refused.
    func receiveReplacement(_ request: JingleRequest, of old: String, from device: JID) {
        let new = request.sessionID
        if let replaced = replacements.subscriptions[old], replaced.device == device, replaced.new == new { return }   // a repeat
        guard let target = restartSession(sid: old), target.direction == .subscription, target.device == device,
              restartSession(sid: new) == nil else {
            replacements.refused += 1
            return
        }
        forgetRestarts(of: old)
        let subscribed = adoptReplacement(request, of: old, from: device)
        replacements.subscriptions[old] = JingleSessionReplacements.Replaced(new: new, device: device)
        updateSessionDirectory()
        if replacements.waiters[old] != nil {
            replacements.resume(old, with: new)
        } else if subscribed {
            eventSink.yield(.hangup(target.handle, reason: "\(device) replaced session \(old) by \(new)"))
        }
    }

    /// Our subscription on `handle` needs a new connection: the publisher's replacement when it
    /// came, else one asked for and waited for (``JingleReplacementTiming/subscriberWait``).
    func replaceSubscription(on handle: RouterHandleID) async throws -> SubscriptionOffer {
        guard !ended else { throw SignalingError(sessionLost: true, "replaceSubscription: the call ended") }
        if let old = replacements.subscriptions.keys.first(where: { subscriptionHandle(forSession: $0) == handle }) {
            return try subscribeToReplacement(sid: latestReplacement(of: old))
        }
        guard let target = restartSession(handle: handle), target.direction == .subscription, target.accepted else {
            throw SignalingError("replaceSubscription: no accepted subscription \(handle)")
        }
        let old = target.sid
        try await setWhenConnected(JingleSessionReplaceShape.request(sid: old), to: target.device)
        let wait = JingleReplacementTiming.subscriberWait
        let timer = Task { [weak self] in
            try? await Task.sleep(for: wait)
            await self?.endReplacementWait(old)
        }
        defer { timer.cancel() }
        let new = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            if let replaced = replacements.subscriptions[old] {
                continuation.resume(returning: replaced.new)
            } else {
                replacements.waiters[old, default: []].append(continuation)
            }
        }
        guard let new else { throw SignalingError("replaceSubscription: \(target.device) sent no new session within \(wait)") }
        return try subscribeToReplacement(sid: latestReplacement(of: new))
    }

    /// The member's publication `sid` ended (terminated, or the member left): a wait for its
    /// replacement ends with none.
    func endReplacementWait(_ sid: String) {
        replacements.resume(sid, with: nil)
    }

    /// The last session of the chain that replaced `sid`.
    private func latestReplacement(of sid: String) -> String {
        var current = sid, seen: Set<String> = [sid]
        while let next = replacements.subscriptions[current]?.new, seen.insert(next).inserted { current = next }
        return current
    }
}
