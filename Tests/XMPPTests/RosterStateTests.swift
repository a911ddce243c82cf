import Testing
import XMPP

/// The roster/presence reducer as a table: stanzas in, friend events out (RFC 6121).
@Suite struct RosterStateTests {
    static let me = JID("me@example.org/phone")!
    static let bob = JID("bob@example.org")!

    private static func parse(_ text: String) -> XMPPElement {
        // Test stanzas are written as Prosody sends them.
        try! XMPPElementReader.read(Array(text.utf8))
    }

    private static func push(_ item: String, from: String = "me@example.org") -> String {
        "<iq xmlns='jabber:client' type='set' id='p' from='\(from)'><query xmlns='jabber:iq:roster'>\(item)</query></iq>"
    }

    static let online = Friend(jid: bob, availability: .available(show: nil))
    static let offline = Friend(jid: bob, availability: .offline)

    /// (stanzas applied in order, the events of the last one).
    static let table: [(String, [String], [RosterEvent])] = [
        ("a pending request is no friend", [push("<item jid='bob@example.org' subscription='none' ask='subscribe'/>")], []),
        ("subscription to: no friend yet", [push("<item jid='bob@example.org' subscription='to'/>")], []),
        ("both: a friend, offline", [push("<item jid='bob@example.org' subscription='both'/>")], [.friendAdded(offline)]),
        ("presence before friendship is kept",
         ["<presence xmlns='jabber:client' from='bob@example.org/laptop'/>", push("<item jid='bob@example.org' subscription='both'/>")],
         [.friendAdded(online)]),
        ("friend comes online", [push("<item jid='bob@example.org' subscription='both'/>"), "<presence xmlns='jabber:client' from='bob@example.org/laptop'/>"],
         [.friendChanged(online)]),
        ("away", [push("<item jid='bob@example.org' subscription='both'/>"), "<presence xmlns='jabber:client' from='bob@example.org/laptop'><show>away</show></presence>"],
         [.friendChanged(Friend(jid: bob, availability: .available(show: "away")))]),
        ("one of two resources leaves: still online",
         [push("<item jid='bob@example.org' subscription='both'/>"), "<presence xmlns='jabber:client' from='bob@example.org/a'/>",
          "<presence xmlns='jabber:client' from='bob@example.org/b'/>", "<presence xmlns='jabber:client' from='bob@example.org/a' type='unavailable'/>"], []),
        ("last resource leaves: offline",
         [push("<item jid='bob@example.org' subscription='both'/>"), "<presence xmlns='jabber:client' from='bob@example.org/a'/>",
          "<presence xmlns='jabber:client' from='bob@example.org/a' type='unavailable'/>"], [.friendChanged(offline)]),
        ("removed from the roster",
         [push("<item jid='bob@example.org' subscription='both'/>"), push("<item jid='bob@example.org' subscription='remove'/>")], [.friendRemoved(bob)]),
        ("mutual becomes one-way", [push("<item jid='bob@example.org' subscription='both'/>"), push("<item jid='bob@example.org' subscription='from'/>")],
         [.friendRemoved(bob)]),
        ("friend request", ["<presence xmlns='jabber:client' from='bob@example.org/x' type='subscribe'/>"], [.subscriptionRequest(from: bob)]),
        ("our own other resource is not a friend", ["<presence xmlns='jabber:client' from='me@example.org/tablet'/>"], []),
        ("roster result replaces everything",
         [push("<item jid='bob@example.org' subscription='both'/>"),
          "<iq xmlns='jabber:client' type='result' id='r'><query xmlns='jabber:iq:roster'><item jid='carol@example.org' subscription='both' name='Carol'/></query></iq>"],
         [.friendRemoved(bob), .friendAdded(Friend(jid: JID("carol@example.org")!, name: "Carol", availability: .offline))]),
        ("probe and error presences change nothing",
         [push("<item jid='bob@example.org' subscription='both'/>"), "<presence xmlns='jabber:client' from='bob@example.org/a' type='error'/>"], []),
    ]

    @Test(arguments: table.indices)
    func reducer(_ index: Int) throws {
        let (name, stanzas, expected) = Self.table[index]
        var state = RosterState()
        var last: [RosterEvent] = []
        for stanza in stanzas { last = try state.apply(Self.parse(stanza), ownJID: Self.me) }
        #expect(last == expected, "\(name)")
    }

    @Test(arguments: [
        push("<item jid='bob@example.org' subscription='both'/>", from: "mallory@evil.example"),   // spoofed push
        push("<item jid='bob@example.org' subscription='both'/><item jid='c@d' subscription='both'/>"),   // two items
        push("<item subscription='both'/>"),                                                   // no jid
        push("<item jid='bob@example.org' subscription='everything'/>"),                       // unknown subscription
        "<presence xmlns='jabber:client' from='@@@'/>",                                         // invalid sender
    ])
    func hostileStanzasThrowAndChangeNothing(_ stanza: String) throws {
        var state = RosterState()
        _ = try state.apply(Self.parse(Self.push("<item jid='bob@example.org' subscription='both'/>")), ownJID: Self.me)
        let before = state
        #expect(throws: XMPPError.self) { try state.apply(Self.parse(stanza), ownJID: Self.me) }
        #expect(state == before)
    }

    @Test func clearPresenceTakesFriendsOffline() throws {
        var state = RosterState()
        _ = try state.apply(Self.parse(Self.push("<item jid='bob@example.org' subscription='both'/>")), ownJID: Self.me)
        _ = try state.apply(Self.parse("<presence xmlns='jabber:client' from='bob@example.org/a'/>"), ownJID: Self.me)
        #expect(state.clearPresence() == [.friendChanged(Self.offline)])
    }
}
