import Testing
import XMPP

/// XEP-0215 results as Prosody 0.12's mod_turn_external sends them (captured from the real
/// server of XMPPRealTests, host and credentials changed), and broken ones.
@Suite struct ExternalServiceTests {
    @Test func prosodyResult() throws {
        let result = try XMPPElementReader.read(Array("""
        <iq xmlns='jabber:client' type='result' id='s1' from='callscope.example' to='alice@callscope.example/callscope'>\
        <services xmlns='urn:xmpp:extdisco:2'>\
        <service type='stun' host='192.0.2.7' port='3478' transport='udp'/>\
        <service type='turn' host='192.0.2.7' port='3478' transport='udp' username='1764748800' password='abc=' expires='2025-12-03T08:00:00Z' restricted='1'/>\
        <service type='turn' host='192.0.2.7' port='3478' transport='tcp' username='1764748800' password='abc=' expires='2025-12-03T08:00:00Z' restricted='1'/>\
        </services></iq>
        """.utf8))
        let (services, skipped) = try ExternalService.parse(result: result)
        #expect(skipped == 0)
        #expect(services == [
            ExternalService(type: "stun", host: "192.0.2.7", port: 3478, transport: "udp"),
            ExternalService(type: "turn", host: "192.0.2.7", port: 3478, transport: "udp", username: "1764748800", password: "abc=", expires: "2025-12-03T08:00:00Z"),
            ExternalService(type: "turn", host: "192.0.2.7", port: 3478, transport: "tcp", username: "1764748800", password: "abc=", expires: "2025-12-03T08:00:00Z"),
        ])
    }

    @Test func invalidEntriesAreSkippedAndCounted() throws {
        let result = try XMPPElementReader.read(Array("""
        <iq xmlns='jabber:client' type='result' id='s1'><services xmlns='urn:xmpp:extdisco:2'>\
        <service type='stun' host='a' port='70000'/><service type='stun' port='1'/><service host='a'/>\
        <service type='stun' host='a' port='0'/><service type='turn' host='b'/></services></iq>
        """.utf8))
        let (services, skipped) = try ExternalService.parse(result: result)
        #expect(services == [ExternalService(type: "turn", host: "b")])
        #expect(skipped == 4)
    }

    @Test func errorsAndMissingPayloadThrow() throws {
        let error = try XMPPElementReader.read(Array("""
        <iq xmlns='jabber:client' type='error' id='s1'><error type='cancel'><service-unavailable xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>
        """.utf8))
        #expect(throws: XMPPError.self) { try ExternalService.parse(result: error) }
        let empty = try XMPPElementReader.read(Array("<iq xmlns='jabber:client' type='result' id='s1'/>".utf8))
        #expect(throws: XMPPError.self) { try ExternalService.parse(result: empty) }
    }

    @Test func request() {
        #expect(ExternalService.request(id: "x", server: "example.org").xmlString()
                == "<iq xmlns=\"jabber:client\" id=\"x\" to=\"example.org\" type=\"get\"><services xmlns=\"urn:xmpp:extdisco:2\"/></iq>")
    }
}
