import CallScopeCore
import XMPP

/// What replacing a call's Jingle sessions needs to remember (JingleSessionReplacing.swift), by
/// session id: the sessions replaced in each direction (a late request or a repeat for one is
/// acknowledged and not acted on), the subscriptions waiting for their publisher's
/// replacement, and the counts. One value serves a call of two and a mesh.
struct JingleSessionReplacements: Sendable {
    /// A replaced session: the one in its place, and the member's device at the other end.
    struct Replaced: Sendable {
        let new: String
        let device: JID
    }

    /// Our publications replaced, by old sid.
    var publications: [String: Replaced] = [:]
    /// The members' publications replaced (our subscriptions), by old sid.
    var subscriptions: [String: Replaced] = [:]
    /// Our subscriptions waiting for their publisher's new session, by old sid; resumed with
    /// the new sid, or `nil` when the wait ends without one.
    var waiters: [String: [CheckedContinuation<String?, Never>]] = [:]
    /// Replacements and replacement requests refused: for a session that is not the sender's,
    /// or from someone not in the call.
    var refused = 0
    /// Our publications replaced because their subscriber asked.
    var requested = 0

    /// Wakes whoever waits for the replacement of `old`.
    mutating func resume(_ old: String, with new: String?) {
        for waiter in waiters.removeValue(forKey: old) ?? [] { waiter.resume(returning: new) }
    }

    /// Wakes every waiter with nothing (the call ended).
    mutating func resumeAll() {
        let all = waiters.values.flatMap { $0 }
        waiters.removeAll()
        for waiter in all { waiter.resume(returning: nil) }
    }
}

/// The sessions of a call by sid, with the member's device at their other end: read by the
/// client's IQ handler (which must answer at once, off the call's actor) to refuse a
/// replacement of a session that is not the sender's with a stanza error.
final class JingleSessionDirectory: Sendable {
    private let sessions = Locked<[String: JID]>([:])

    /// Sets the sessions (current and replaced).
    func set(_ value: [String: JID]) { sessions.withLock { $0 = value } }

    /// Whether session `sid` is one of the call's with `device`.
    func contains(_ sid: String, from device: JID) -> Bool {
        sessions.withLock { $0[sid] == device }
    }
}
