import Foundation
import Testing
import XMPP

/// The login machine driven by a scripted server: RFC 5802's SCRAM exchange, RFC 7395's
/// stream restart, binding, XEP-0198 enable and resume, and failures.
@Suite struct XMPPStreamNegotiationTests {
    static let features = "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism><mechanism>SCRAM-SHA-1</mechanism></mechanisms></stream:features>"
    static let open = "<open xmlns='urn:ietf:params:xml:ns:xmpp-framing' version='1.0' from='example.org' id='s1'/>"
    static let boundFeatures = "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/><sm xmlns='urn:xmpp:sm:3'/></stream:features>"

    private static func element(_ text: String) -> XMPPElement { try! XMPPElementReader.read(Array(text.utf8)) }
    private static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    private static func sent(_ actions: [XMPPStreamNegotiation.Action]) -> [String] {
        actions.compactMap { if case .send(let element) = $0 { element.xmlString() } else { nil } }
    }

    /// Drives the machine to the point after SASL success and the restart's features.
    private func authenticated(resumption: XMPPStreamNegotiation.Resumption? = nil) -> XMPPStreamNegotiation {
        var machine = XMPPStreamNegotiation(domain: "example.org", username: "user", password: "pencil", resource: "r",
                                            resumption: resumption, clientNonce: "fyko+d2lbbFgONRv9qkxdawL")
        #expect(Self.sent(machine.start()) == ["<open xmlns=\"urn:ietf:params:xml:ns:xmpp-framing\" to=\"example.org\" version=\"1.0\"/>"])
        #expect(machine.receive(Self.element(Self.open)).isEmpty)
        #expect(Self.sent(machine.receive(Self.element(Self.features)))
                == ["<auth xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\" mechanism=\"SCRAM-SHA-1\">\(Self.base64("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"))</auth>"])
        let challenge = Self.base64("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
        #expect(Self.sent(machine.receive(Self.element("<challenge xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(challenge)</challenge>")))
                == ["<response xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\">\(Self.base64("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="))</response>"])
        let success = Self.base64("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")
        #expect(Self.sent(machine.receive(Self.element("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(success)</success>")))
                == ["<open xmlns=\"urn:ietf:params:xml:ns:xmpp-framing\" to=\"example.org\" version=\"1.0\"/>"])
        #expect(machine.receive(Self.element(Self.open)).isEmpty)
        return machine
    }

    @Test func loginBindsAndEnablesStreamManagement() {
        var machine = authenticated()
        #expect(Self.sent(machine.receive(Self.element(Self.boundFeatures)))
                == ["<iq xmlns=\"jabber:client\" id=\"bind\" type=\"set\"><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"><resource>r</resource></bind></iq>"])
        #expect(Self.sent(machine.receive(Self.element("<iq xmlns='jabber:client' type='result' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>user@example.org/r</jid></bind></iq>")))
                == ["<enable xmlns=\"urn:xmpp:sm:3\" resume=\"true\"/>"])
        let done = machine.receive(Self.element("<enabled xmlns='urn:xmpp:sm:3' id='sm-1' resume='true' max='600'/>"))
        #expect(done == [.established(.init(jid: JID("user@example.org/r")!, resumed: false, serverHandled: nil, resumptionID: "sm-1", streamManagement: true))])
    }

    @Test func resumptionAndItsFailure() {
        let earlier = XMPPStreamNegotiation.Resumption(id: "sm-1", jid: JID("user@example.org/r")!, handled: 12)
        var machine = authenticated(resumption: earlier)
        #expect(Self.sent(machine.receive(Self.element(Self.boundFeatures))) == ["<resume xmlns=\"urn:xmpp:sm:3\" h=\"12\" previd=\"sm-1\"/>"])
        #expect(machine.receive(Self.element("<resumed xmlns='urn:xmpp:sm:3' h='3' previd='sm-1'/>"))
                == [.established(.init(jid: earlier.jid, resumed: true, serverHandled: 3, resumptionID: "sm-1", streamManagement: true))])

        var expired = authenticated(resumption: earlier)
        _ = expired.receive(Self.element(Self.boundFeatures))
        // The session timed out on the server: bind a new one.
        #expect(Self.sent(expired.receive(Self.element("<failed xmlns='urn:xmpp:sm:3'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></failed>"))).first?.contains("xmpp-bind") == true)
    }

    @Test(arguments: [
        ("<failure xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><not-authorized/></failure>", "authentication-failed"),
        ("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(Data("v=AAAAAAAAAAAAAAAAAAAAAAAAAAA=".utf8).base64EncodedString())</success>", "authentication-failed"),
        ("<stream:error xmlns:stream='http://etherx.jabber.org/streams'><policy-violation xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>", "stream-error"),
        ("<message xmlns='jabber:client'/>", "protocol-violation"),
        ("<close xmlns='urn:ietf:params:xml:ns:xmpp-framing'/>", "transport"),
    ])
    func failuresDuringSASL(_ answer: String, _ code: String) {
        var machine = XMPPStreamNegotiation(domain: "example.org", username: "user", password: "pencil", resource: "r", clientNonce: "fyko+d2lbbFgONRv9qkxdawL")
        _ = machine.start()
        _ = machine.receive(Self.element(Self.open))
        _ = machine.receive(Self.element(Self.features))
        let challenge = Self.base64("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
        _ = machine.receive(Self.element("<challenge xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(challenge)</challenge>"))
        let actions = machine.receive(Self.element(answer))
        guard case .failed(let error)? = actions.first else {
            Issue.record("no failure: \(actions)")
            return
        }
        #expect(error.code.rawValue == code)
        #expect(machine.receive(Self.element(Self.open)).isEmpty)   // done: later input is ignored
    }

    @Test func plainOnlyWhenAllowed() {
        let plainOnly = "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>"
        var refusing = XMPPStreamNegotiation(domain: "example.org", username: "user", password: "pencil", resource: "r")
        _ = refusing.receive(Self.element(Self.open))
        guard case .failed(let error)? = refusing.receive(Self.element(plainOnly)).first else {
            Issue.record("PLAIN used without permission")
            return
        }
        #expect(error.code == .authenticationFailed)
        var allowing = XMPPStreamNegotiation(domain: "example.org", username: "user", password: "pencil", resource: "r", allowPlain: true)
        _ = allowing.receive(Self.element(Self.open))
        #expect(Self.sent(allowing.receive(Self.element(plainOnly))).first?.contains("mechanism=\"PLAIN\">\(Data("\0user\0pencil".utf8).base64EncodedString())<") == true)
    }
}
