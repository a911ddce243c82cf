import Testing
import XMPP

/// The XML reader on real stream elements and on hostile input (RFC 6120 §11.1's forbidden
/// constructs, limits, broken XML): always an element or a typed error.
@Suite struct XMPPElementReaderTests {
    private func read(_ text: String, limits: XMPPReadLimits = XMPPReadLimits()) throws(XMPPError) -> XMPPElement {
        try XMPPElementReader.read(Array(text.utf8), limits: limits)
    }

    @Test func featuresWithPrefixedStreamNamespace() throws {
        let element = try read("""
        <stream:features xmlns:stream='http://etherx.jabber.org/streams'><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\
        <mechanism>SCRAM-SHA-1</mechanism><mechanism>PLAIN</mechanism></mechanisms></stream:features>
        """)
        #expect(element.name == "features")
        #expect(element.namespace == "http://etherx.jabber.org/streams")
        let mechanisms = element.child("mechanisms", namespace: "urn:ietf:params:xml:ns:xmpp-sasl")
        #expect(mechanisms?.children("mechanism").map(\.text) == ["SCRAM-SHA-1", "PLAIN"])
        #expect(mechanisms?.children.first?.namespace == "urn:ietf:params:xml:ns:xmpp-sasl")   // inherited default namespace
    }

    @Test func predefinedEntitiesCharacterReferencesAndCDATA() throws {
        let element = try read("<message xmlns='jabber:client' to='a@b' x='&quot;q&apos;'><body>1 &lt; 2 &amp;&amp; &#65;&#x42; <![CDATA[<raw>]]></body></message>")
        #expect(element.attributes == ["to": "a@b", "x": "\"q'"])
        #expect(element.child("body")?.text == "1 < 2 && AB <raw>")
    }

    @Test func serializationRoundTrips() throws {
        let original = XMPPElement("message", namespace: "jabber:client", attributes: ["to": "b@c", "note": "<\"&'>"],
                                   children: [XMPPElement("body", namespace: "jabber:client", text: "a < b & c > d")])
        let text = original.xmlString()
        #expect(text == "<message xmlns=\"jabber:client\" note=\"&lt;&quot;&amp;&apos;&gt;\" to=\"b@c\"><body>a &lt; b &amp; c &gt; d</body></message>")
        #expect(try read(text) == original)
    }

    @Test(arguments: [
        ("<a><b></a>", "mismatched tags"),
        ("<a><b>", "unclosed tags"),
        ("<a", "truncated start tag"),
        ("", "empty message"),
        ("just text", "no element"),
        ("<a/><b/>", "two top-level elements"),
        ("<p:a/>", "undeclared prefix"),
        ("<a>&undefined;</a>", "undefined entity"),
        ("<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "internal entity declaration"),
        ("<!DOCTYPE a [<!ENTITY x0 'ha'><!ENTITY x1 '&x0;&x0;&x0;&x0;&x0;&x0;&x0;&x0;&x0;&x0;'><!ENTITY x2 '&x1;&x1;&x1;&x1;&x1;&x1;&x1;&x1;&x1;&x1;'>]><a>&x2;</a>", "billion laughs"),
        ("<!DOCTYPE a [<!ENTITY xxe SYSTEM 'file:///etc/passwd'>]><a>&xxe;</a>", "external entity"),
        ("<a><!-- comment --></a>", "comment"),
        ("<a><?pi data?></a>", "processing instruction"),
        ("<a x='1' x='2'/>", "duplicate attribute"),
        ("<a>\u{0}</a>", "NUL character"),
    ])
    func hostileInputIsATypedError(_ text: String, _ what: String) {
        #expect(throws: XMPPError.self, "\(what)") { try read(text) }
    }

    @Test func invalidUTF8IsATypedError() {
        #expect(throws: XMPPError.self) { try XMPPElementReader.read([0x3C, 0x61, 0x3E, 0xFF, 0xFE, 0x3C, 0x2F, 0x61, 0x3E]) }
    }

    @Test func invalidUTF8InANamespacePrefixIsATypedError() {
        // The fuzzer's find: FoundationXML trapped on this (Tests/FuzzRegressions/xmpp/).
        let bytes = Array("<open xmlns".utf8) + [UInt8](repeating: 0xFF, count: 10) + Array("='urn:x' version='1.0'/>".utf8)
        #expect(throws: XMPPError.self) { try XMPPElementReader.read(bytes) }
    }

    @Test func leadingXMLDeclarationIsAllowed() throws {
        #expect(try read("<?xml version='1.0'?><a/>").name == "a")
    }

    @Test func depthBombIsRefused() {
        let depth = 10_000
        let text = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(throws: XMPPError.self) { try read(text) }
        // Just inside the limit is fine.
        let limits = XMPPReadLimits(maximumDepth: 32)
        #expect((try? read(String(repeating: "<a>", count: 32) + String(repeating: "</a>", count: 32), limits: limits)) != nil)
        #expect(throws: XMPPError.self) { try read(String(repeating: "<a>", count: 33) + String(repeating: "</a>", count: 33), limits: limits) }
    }

    @Test func hugeAttributeAndMessageAreRefusedByTheByteLimit() {
        let huge = "<a x='" + String(repeating: "x", count: 300 << 10) + "'/>"
        #expect(throws: XMPPError.self) { try read(huge) }
        #expect((try? read(huge, limits: XMPPReadLimits(maximumBytes: 1 << 20))) != nil)
    }

    @Test func tooManyAttributesOrElements() {
        let attributes = (0..<65).map { "a\($0)='1'" }.joined(separator: " ")
        #expect(throws: XMPPError.self) { try read("<a \(attributes)/>") }
        let wide = "<a>" + String(repeating: "<b/>", count: 10_001) + "</a>"
        #expect(throws: XMPPError.self) { try read(wide) }
    }

    @Test(arguments: [
        ("alice@example.org/phone", "alice", "example.org", "phone"),
        ("Alice@Example.ORG", "alice", "example.org", ""),
        ("example.org", "", "example.org", ""),
        ("a@b/c/d@e", "a", "b", "c/d@e"),
    ])
    func jidParsing(_ text: String, _ local: String, _ domain: String, _ resource: String) throws {
        let jid = try #require(JID(text))
        #expect(jid.local == local && jid.domain == domain && jid.resource == resource)
    }

    @Test(arguments: ["", "@example.org", "a@", "a@b@c", "a@b/"])
    func invalidJIDs(_ text: String) {
        #expect(JID(text) == nil)
    }
}
