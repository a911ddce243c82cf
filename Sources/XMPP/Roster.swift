/// One contact of the roster (RFC 6121 §2).
package struct RosterItem: Hashable, Sendable {
    /// The contact's bare JID.
    package var jid: JID
    /// The name the user gave it, if any.
    package var name: String?
    /// Who sees whose presence.
    package var subscription: Subscription
    /// Whether our subscription request to them is pending (`ask="subscribe"`).
    package var pendingOut: Bool

    /// The subscription state of a roster item.
    package enum Subscription: String, Hashable, Sendable {
        /// Neither sees the other's presence.
        case none
        /// We see theirs.
        case to
        /// They see ours.
        case from
        /// Both: a friend.
        case both
    }

    /// Creates an item.
    package init(jid: JID, name: String? = nil, subscription: Subscription, pendingOut: Bool = false) {
        self.jid = jid
        self.name = name
        self.subscription = subscription
        self.pendingOut = pendingOut
    }
}

/// Whether a friend is online, and how (RFC 6121 §4.7.2.1 `<show/>`).
public enum FriendAvailability: Hashable, Sendable {
    /// No available resource.
    case offline
    /// At least one resource is available; `show` is the most available one's (`chat`, `away`,
    /// `xa`, `dnd`; `nil` for plain available).
    case available(show: String?)
}

/// A friend: a roster item with a mutual subscription, and its presence.
public struct Friend: Hashable, Sendable {
    /// Their bare JID.
    public var jid: JID
    /// The roster name, if any.
    public var name: String?
    /// Online or not.
    public var availability: FriendAvailability

    /// Creates a friend.
    public init(jid: JID, name: String? = nil, availability: FriendAvailability) {
        self.jid = jid
        self.name = name
        self.availability = availability
    }
}

/// A change of the friends list, or a request to become friends.
public enum RosterEvent: Hashable, Sendable {
    /// A contact became a friend (mutual subscription).
    case friendAdded(Friend)
    /// A friend's availability or name changed.
    case friendChanged(Friend)
    /// A contact stopped being a friend (or was removed).
    case friendRemoved(JID)
    /// Someone asks to see our presence; approve with `subscribed`.
    case subscriptionRequest(from: JID)
}
