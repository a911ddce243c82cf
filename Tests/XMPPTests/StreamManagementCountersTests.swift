import Testing
import XMPP

/// XEP-0198 counters: acknowledgements, wrap-around at 2^32, hostile `h`, the bounded queue.
@Suite struct StreamManagementCountersTests {
    private func stanza(_ id: Int) -> XMPPElement { .iq(type: "get", id: "\(id)") }

    @Test func acknowledgementDropsHandledStanzas() throws {
        var counters = StreamManagementCounters()
        for id in 0..<5 { counters.sent(stanza(id)) }
        try counters.acknowledge(3)
        #expect(counters.unacknowledged == [stanza(3), stanza(4)])
        #expect(try counters.resumed(serverHandled: 4) == [stanza(4)])
        #expect(counters.unacknowledged.isEmpty)
    }

    @Test func inboundCountAndAnswer() {
        var counters = StreamManagementCounters()
        for _ in 0..<7 { counters.received() }
        #expect(counters.acknowledgement.xmlString() == "<a xmlns=\"urn:xmpp:sm:3\" h=\"7\"/>")
    }

    @Test func acknowledgingMoreThanSentOrGoingBackIsRefused() throws {
        var counters = StreamManagementCounters()
        counters.sent(stanza(1))
        #expect(throws: XMPPError.self) { try counters.acknowledge(2) }
        try counters.acknowledge(1)
        // h going backwards is, modulo 2^32, a huge jump forward: refused too.
        #expect(throws: XMPPError.self) { try counters.acknowledge(0) }
        #expect(counters.outboundAcknowledged == 1)
    }

    @Test func boundedQueueCountsItsDrops() throws {
        var counters = StreamManagementCounters(queueLimit: 3)
        for id in 0..<5 { counters.sent(stanza(id)) }
        #expect(counters.unacknowledged == [stanza(2), stanza(3), stanza(4)])
        #expect(counters.droppedFromQueue == 2)
        try counters.acknowledge(5)
        #expect(counters.unacknowledged.isEmpty)
    }
}
