import XMPP

/// Which side of a friend connection sends the offer (Jingle `session-initiate`): the device
/// whose full JID sorts first. Both sides compute the same answer from the same two JIDs, so
/// they never both offer (no glare) and never both wait.
public enum FriendSessionRole: Hashable, Sendable {
    /// Sends the offer.
    case initiator
    /// Waits for the offer and answers it.
    case responder

    /// Our role towards `friend` (a full JID), ours being `own` (full): `initiator` when `own`
    /// sorts before `friend` (by their string form, byte order).
    public init(own: JID, friend: JID) {
        self = Array(own.description.utf8).lexicographicallyPrecedes(Array(friend.description.utf8)) ? .initiator : .responder
    }
}
