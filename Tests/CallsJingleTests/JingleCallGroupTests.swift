@testable import CallsJingle
import Jingle
import Testing
import XMPP

/// The member list a mesh call's XEP-0353 `propose` carries (docs/peer-to-peer.md, "Relayed
/// calls of several friends"): read back as written, hostile lists refused with a typed error.
@Suite struct JingleCallGroupTests {
    static let namespace = "urn:callscope:jingle-group:0"

    private func proposal(_ members: [XMPPElement]) -> XMPPElement {
        XMPPElement("propose", namespace: JingleNamespace.jingleMessage, attributes: ["id": "call1"],
                    children: [XMPPElement("group", namespace: Self.namespace, children: members)])
    }

    private func member(_ jid: String?) -> XMPPElement {
        XMPPElement("member", namespace: Self.namespace, attributes: jid.map { ["jid": $0] } ?? [:])
    }

    @Test func aGroupReadsBackAsWrittenBareAndSortedWithoutDuplicates() throws {
        let written = JingleCallGroup(members: [JID("carol@example.org/tablet")!, JID("Alice@Example.org")!, JID("carol@example.org")!])
        #expect(written.members.map(\.description) == ["alice@example.org", "carol@example.org"])
        let element = written.adding(to: XMPPElement("propose", namespace: JingleNamespace.jingleMessage, attributes: ["id": "call1"]))
        #expect(try JingleCallGroup(proposal: element) == written)
    }

    @Test func aProposalWithoutAGroupIsATwoPartyCall() throws {
        #expect(try JingleCallGroup(proposal: XMPPElement("propose", namespace: JingleNamespace.jingleMessage, attributes: ["id": "call1"])) == nil)
    }

    /// 16 members is the limit (`JingleCallGroup.limit`); a member without a JID, with an empty
    /// domain, or 17 members are malformed.
    @Test(arguments: [
        ("no jid attribute", [nil]),
        ("empty jid", [""]),
        ("no domain", ["alice@"]),
        ("seventeen members", (0..<17).map { "user\($0)@example.org" } as [String?]),
    ] as [(String, [String?])])
    func hostileGroupsAreRefused(_ name: String, _ jids: [String?]) {
        #expect(throws: JingleError.self, "\(name)") { try JingleCallGroup(proposal: proposal(jids.map(member))) }
    }

    @Test func sixteenMembersAreRead() throws {
        let group = try JingleCallGroup(proposal: proposal((0..<16).map { member("user\($0)@example.org") }))
        #expect(group?.members.count == 16)
    }
}
