import Jingle
import XMPP

/// The members of a relayed call of several friends, carried in each XEP-0353 `propose` of it
/// as an extension element XEP-0353 clients that do not know it ignore:
/// `<group xmlns='urn:callscope:jingle-group:0'><member jid='bob@example.org'/>…</group>`
/// (bare JIDs, the proposer's included; at most ``limit``).
struct JingleCallGroup: Hashable, Sendable {
    static let namespace = "urn:callscope:jingle-group:0"
    /// More members than this in a `propose` make it malformed (a mesh of 16 is already 240
    /// media connections).
    static let limit = 16

    /// Bare JIDs, sorted.
    var members: [JID]

    init(members: some Sequence<JID>) {
        self.members = Set(members.map(\.bare)).sorted()
    }

    /// Reads the group inside a `propose` element; `nil` when it has none (a two-party call).
    /// - Throws: ``JingleError`` when a member is no JID or there are more than ``limit``.
    init?(proposal: XMPPElement) throws(JingleError) {
        guard let group = proposal.child("group", namespace: Self.namespace) else { return nil }
        let entries = group.children("member", namespace: Self.namespace)
        guard entries.count <= Self.limit else { throw JingleError(.limitExceeded, "\(entries.count) members in <group>, over \(Self.limit)") }
        var members: [JID] = []
        for entry in entries {
            guard let text = entry.attributes["jid"], let jid = JID(text) else {
                throw JingleError(.malformedJingle, "<member> without a valid jid: \(String(describing: entry.attributes["jid"]?.prefix(80)))")
            }
            members.append(jid)
        }
        self.init(members: members)
    }

    /// `proposal` with this group inside.
    func adding(to proposal: XMPPElement) -> XMPPElement {
        var proposal = proposal
        proposal.children.append(XMPPElement("group", namespace: Self.namespace, children: members.map {
            XMPPElement("member", namespace: Self.namespace, attributes: ["jid": $0.description])
        }))
        return proposal
    }
}
