import Jingle
import XMPP

/// A Jingle IQ of a call as the client's IQ handler sorts it, before the call's actor sees it.
/// The call of two and the mesh sort alike; only who may send differs.
enum JingleCallIQ: Sendable {
    /// A session action (initiate, accept, transport-info, content-modify, terminate, …).
    case request(JingleRequest, from: JID)
    /// The sender asks for an ICE restart of a session (JingleIceRestarting.swift).
    case iceRestartRequest(sid: String, from: JID)
    /// The sender's new session replacing its publication `replacing` (JingleSessionReplacing.swift).
    case replacement(JingleRequest, replacing: String, from: JID)
    /// The sender asks for a new session in place of our publication `sid` towards it.
    case replacementRequest(sid: String, from: JID)
    /// A payload that does not read as Jingle (refused with `bad-request`).
    case malformed
    /// A replacement or replacement request refused here (counted by the call).
    case refusedReplacement

    /// Sorts `iq` from `sender`: what to hand the call (nil: nothing) and the stanza error to
    /// answer with (nil: a result). Someone who is not `aMember` is refused with
    /// `service-unavailable`; a replacement of a session that is not one of the sender's in
    /// `directory` with `item-not-found` (a friend's device not in the call has none).
    static func sort(_ iq: XMPPElement, from sender: JID, aMember: Bool, directory: JingleSessionDirectory) -> (input: JingleCallIQ?, error: String?) {
        let replaced = iq.children.first.flatMap(JingleReplacementCheck.replacedSession(in:))
        guard aMember else { return (replaced == nil ? nil : .refusedReplacement, "service-unavailable") }
        guard let payload = iq.children.first, let request = try? JingleRequest(element: payload) else { return (.malformed, "bad-request") }
        guard let replaced else {
            return (JingleIceRestartShape.isRequest(payload) ? .iceRestartRequest(sid: request.sessionID, from: sender) : .request(request, from: sender), nil)
        }
        if let refusal = JingleReplacementCheck.refusal(replacing: replaced, from: sender, in: directory) { return (.refusedReplacement, refusal) }
        return (JingleSessionReplaceShape.isRequest(payload) ? .replacementRequest(sid: replaced, from: sender)
                                                             : .replacement(request, replacing: replaced, from: sender), nil)
    }
}
