import Calls
import FriendConnections
import XMPP

/// One signalling message of a friend connection's session `sid` (Jingle: `session-initiate`,
/// `session-accept`, `transport-info`, `session-terminate`).
enum FriendSignal: Hashable, Sendable {
    /// The initiator's offer.
    case offer(sid: String, SessionDescription)
    /// The responder's answer.
    case answer(sid: String, SessionDescription)
    /// Trickled candidates.
    case candidates(sid: String, [IceCandidate])
    /// The session ends.
    case terminate(sid: String, reason: String)
    /// An ICE restart: the sender's new ICE credentials (a `transport-info` whose transports
    /// carry a new `ufrag` and `pwd` and no candidates, XEP-0176). From the initiator it is the
    /// restart's offer; the responder answers with its own.
    case iceRestart(sid: String, [IceRestartDescription.Credentials])
    /// The responder asks the initiator to restart ICE (its own network changed; only the
    /// initiator restarts, so two restarts never cross): a `session-info` whose payload is
    /// `<restart-ice xmlns='urn:callscope:jingle:friend:0'/>`.
    case iceRestartRequest(sid: String)

    /// The session the message belongs to.
    var sid: String {
        switch self {
        case .offer(let sid, _), .answer(let sid, _), .candidates(let sid, _), .terminate(let sid, _), .iceRestart(let sid, _), .iceRestartRequest(let sid): sid
        }
    }
}

/// Carries ``FriendSignal``s between two devices (the seam between the friend manager and the
/// Jingle mapping: the manager speaks SDP and candidates, the carrier speaks XMPP).
protocol FriendSignalling: Sendable {
    /// Sends `signal` to `friend` (a full JID); returns once the friend acknowledged it.
    func send(_ signal: FriendSignal, to friend: JID) async throws
    /// Every signal received, in order, with its sender's full JID; a malformed one is `nil`
    /// (refused to its sender and counted).
    func incoming() async -> AsyncStream<(from: JID, signal: FriendSignal?)>
    /// Stops receiving: later signals are refused (`service-unavailable`).
    func stopIncoming() async
}
