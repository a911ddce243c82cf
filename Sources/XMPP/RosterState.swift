/// The roster and the presence of its contacts, as a reducer: each roster result, roster push
/// and presence stanza goes through ``apply(_:ownJID:)``, which returns the changes of the
/// friends list (one diff of the state before and after) in order.
package struct RosterState: Hashable, Sendable {
    /// Every roster item, by bare JID.
    package private(set) var items: [JID: RosterItem] = [:]
    /// Available resources of each contact (bare JID → resource → `<show/>`).
    package private(set) var presences: [JID: [String: String?]] = [:]

    /// An empty roster.
    package init() {}

    /// The friends (mutual subscriptions), sorted by JID.
    package var friends: [Friend] {
        items.values.filter { $0.subscription == .both }.sorted { $0.jid < $1.jid }.map { item in
            Friend(jid: item.jid, name: item.name, availability: availability(of: item.jid))
        }
    }

    /// The availability of `jid` (bare) from the presence received.
    package func availability(of jid: JID) -> FriendAvailability {
        guard let resources = presences[jid.bare], !resources.isEmpty else { return .offline }
        // The most available show: chat, plain, away, xa, dnd.
        let rank: (String?) -> Int = { show in ["chat": 0, "away": 2, "xa": 3, "dnd": 4][show ?? ""] ?? 1 }
        return .available(show: resources.values.min { rank($0) < rank($1) } ?? nil)
    }

    /// Forgets every contact's presence (a new session, not resumed: the server sends it again).
    package mutating func clearPresence() -> [RosterEvent] {
        let before = friends
        presences.removeAll()
        return Self.diff(before, friends)
    }

    /// Applies one stanza: a roster result (`iq type=result` with `jabber:iq:roster`, the whole
    /// roster), a roster push (`iq type=set`, from our own account only: a push from anyone else
    /// is a spoof and throws), or a presence. Other stanzas change nothing.
    package mutating func apply(_ stanza: XMPPElement, ownJID: JID) throws(XMPPError) -> [RosterEvent] {
        let before = friends
        var requests: [RosterEvent] = []
        switch stanza.name {
        case "iq":
            guard let query = stanza.child("query", namespace: XMPPNamespace.roster) else { return [] }
            switch stanza.attributes["type"] {
            case "result":
                var fresh: [JID: RosterItem] = [:]
                for entry in query.children("item", namespace: XMPPNamespace.roster) {
                    if let item = try Self.item(entry), item.subscription != nil { fresh[item.jid] = item.value }
                }
                items = fresh
            case "set":
                if let from = stanza.attributes["from"], JID(from)?.bare != ownJID.bare {
                    throw XMPPError(.protocolViolation, "roster push from \(from), not from our own account")
                }
                let entries = query.children("item", namespace: XMPPNamespace.roster)
                guard entries.count == 1, let item = try Self.item(entries[0]) else {
                    throw XMPPError(.protocolViolation, "roster push with \(entries.count) items (RFC 6121 §2.1.6: exactly one)")
                }
                if item.subscription == nil {
                    items[item.jid] = nil
                    presences[item.jid] = nil
                } else {
                    items[item.jid] = item.value
                }
            default:
                return []
            }
        case "presence":
            guard let fromText = stanza.attributes["from"] else { return [] }
            guard let from = JID(fromText) else { throw XMPPError(.protocolViolation, "presence from the invalid JID \(fromText.prefix(100))") }
            guard from.bare != ownJID.bare else { return [] }
            switch stanza.attributes["type"] {
            case nil:
                let show = stanza.child("show")?.text
                presences[from.bare, default: [:]][from.resource] = .some(show.flatMap { ["chat", "away", "xa", "dnd"].contains($0) ? $0 : nil })
            case "unavailable":
                presences[from.bare]?[from.resource] = nil
                if presences[from.bare]?.isEmpty == true { presences[from.bare] = nil }
            case "subscribe":
                requests.append(.subscriptionRequest(from: from.bare))
            default:
                return []
            }
        default:
            return []
        }
        return requests + Self.diff(before, friends)
    }

    /// One `<item/>`: `nil` subscription for `remove`; throws on a bad JID or subscription.
    private static func item(_ entry: XMPPElement) throws(XMPPError) -> (jid: JID, value: RosterItem, subscription: RosterItem.Subscription?)? {
        guard let text = entry.attributes["jid"], let jid = JID(text) else {
            throw XMPPError(.protocolViolation, "roster item with a missing or invalid jid \(entry.attributes["jid"]?.prefix(100) ?? "")")
        }
        let subscriptionText = entry.attributes["subscription"] ?? "none"
        if subscriptionText == "remove" {
            return (jid.bare, RosterItem(jid: jid.bare, subscription: .none), nil)
        }
        guard let subscription = RosterItem.Subscription(rawValue: subscriptionText) else {
            throw XMPPError(.protocolViolation, "roster item \(jid) with the unknown subscription \(subscriptionText.prefix(40))")
        }
        let item = RosterItem(jid: jid.bare, name: entry.attributes["name"], subscription: subscription, pendingOut: entry.attributes["ask"] == "subscribe")
        return (jid.bare, item, subscription)
    }

    /// The events that turn `old` into `new` (both sorted by JID).
    private static func diff(_ old: [Friend], _ new: [Friend]) -> [RosterEvent] {
        let oldByJID = Dictionary(old.map { ($0.jid, $0) }, uniquingKeysWith: { first, _ in first })
        let newJIDs = Set(new.map(\.jid))
        var events: [RosterEvent] = []
        for friend in old where !newJIDs.contains(friend.jid) { events.append(.friendRemoved(friend.jid)) }
        for friend in new {
            if let previous = oldByJID[friend.jid] {
                if previous != friend { events.append(.friendChanged(friend)) }
            } else {
                events.append(.friendAdded(friend))
            }
        }
        return events
    }
}
