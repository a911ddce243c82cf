import Foundation
@testable import Jingle
import Testing
import XMPP

/// The data-channel part of the mapping (XEP-0343 over ICE-UDP with XEP-0320 fingerprints) on
/// Chromium's own data-channel-only offer and answer: SDP -> Jingle -> XML text -> Jingle -> SDP.
@Suite struct DataChannelMappingTests {
    /// SDP -> Jingle values -> `<jingle/>` XML text -> read back -> SDP.
    static func roundTrip(_ sdp: String, writtenBy role: JingleRole, action: JingleAction) throws -> (JingleSession, JingleRequest, String) {
        let session = try JingleSession(sdp: sdp, writtenBy: role)
        let request = JingleRequest(action: action, sessionID: "a73sjjvkla37jfea", initiator: "alice@example.org/a", session: session)
        let xml = request.element.xmlString()
        let read = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
        return (session, read, try read.session.sdp(writtenBy: role))
    }

    @Test func offerSurvivesTheTripThroughJingle() throws {
        let offer = try Fixture.text("chromium-datachannel-offer.sdp")
        let (session, read, regenerated) = try Self.roundTrip(offer, writtenBy: .initiator, action: .sessionInitiate)
        #expect(read.session == session)
        #expect(read.action == .sessionInitiate)
        #expect(SemanticSDP(regenerated) == SemanticSDP(offer), "\(SemanticSDP(regenerated))\n--- vs ---\n\(SemanticSDP(offer))")
    }

    @Test func answerSurvivesTheTripThroughJingle() throws {
        let answer = try Fixture.text("chromium-datachannel-answer.sdp")
        let (session, read, regenerated) = try Self.roundTrip(answer, writtenBy: .responder, action: .sessionAccept)
        #expect(read.session == session)
        #expect(SemanticSDP(regenerated) == SemanticSDP(answer), "\(SemanticSDP(regenerated))\n--- vs ---\n\(SemanticSDP(answer))")
    }

    /// The values, read off the fixture by hand.
    @Test func offerValuesAreChromiums() throws {
        let session = try JingleSession(sdp: try Fixture.text("chromium-datachannel-offer.sdp"), writtenBy: .initiator)
        #expect(session.groups == [JingleGroup(semantics: "BUNDLE", contentNames: ["0"])])
        #expect(session.contents.count == 1)
        let content = try #require(session.contents.first)
        #expect(content.name == "0")
        #expect(content.creator == .initiator)
        #expect(content.senders == .both)
        #expect(content.application == .dataChannel)
        let transport = try #require(content.transport)
        #expect(transport.usernameFragment == "qdij")
        #expect(transport.password == "YyhnSzIrW7UEornrMqh7FAqQ")
        #expect(transport.sctp == JingleSCTP(port: 5000, maximumMessageSize: 262_144))
        #expect(transport.fingerprints == [JingleFingerprint(
            hashFunction: "sha-256", setup: .actpass,
            value: "20:D2:74:B7:D5:C1:3E:C1:66:6B:E9:9A:91:D6:07:03:6C:C6:F2:7D:CF:2C:CF:CF:26:02:C8:B8:77:77:B5:C9")])
        #expect(transport.candidates == [
            JingleICECandidate(foundation: "91395308", priority: 2_113_937_151, address: "192.0.2.2", port: 35155, type: .host, networkCost: 999),
            JingleICECandidate(foundation: "33618012", priority: 2_113_942_271, address: "fd00::2", port: 41367, type: .host, networkCost: 999),
        ])
    }

    @Test func answerTakesTheActiveRole() throws {
        let session = try JingleSession(sdp: try Fixture.text("chromium-datachannel-answer.sdp"), writtenBy: .responder)
        #expect(session.contents.first?.transport?.fingerprints.first?.setup == .active)
        #expect(session.contents.first?.transport?.usernameFragment == "NjtF")
    }

    /// The XML of a data-channel content, checked against XEP-0166/0176/0320/0343 by hand.
    @Test func dataChannelContentXML() throws {
        let session = try JingleSession(sdp: try Fixture.text("chromium-datachannel-offer.sdp"), writtenBy: .initiator)
        let element = JingleRequest(action: .sessionInitiate, sessionID: "s1", initiator: "alice@example.org/a", session: session).element
        #expect(element.name == "jingle" && element.namespace == "urn:xmpp:jingle:1")
        #expect(element[attribute: "action"] == "session-initiate" && element[attribute: "sid"] == "s1")
        let content = try #require(element.child("content"))
        #expect(content[attribute: "creator"] == "initiator" && content[attribute: "name"] == "0")
        #expect(content.child("description")?.namespace == "urn:xmpp:jingle:transports:webrtc-datachannel:0")
        let transport = try #require(content.child("transport", namespace: "urn:xmpp:jingle:transports:ice-udp:1"))
        #expect(transport[attribute: "ufrag"] == "qdij" && transport[attribute: "pwd"] == "YyhnSzIrW7UEornrMqh7FAqQ")
        let sctpmap = try #require(transport.child("sctpmap", namespace: "urn:xmpp:jingle:transports:dtls-sctp:1"))
        #expect(sctpmap[attribute: "number"] == "5000" && sctpmap[attribute: "protocol"] == "webrtc-datachannel")
        #expect(sctpmap[attribute: "max-message-size"] == "262144")
        let fingerprint = try #require(transport.child("fingerprint", namespace: "urn:xmpp:jingle:apps:dtls:0"))
        #expect(fingerprint[attribute: "hash"] == "sha-256" && fingerprint[attribute: "setup"] == "actpass")
        let candidate = try #require(transport.children("candidate").first)
        #expect(candidate.attributes == ["component": "1", "foundation": "91395308", "generation": "0", "id": "91395308-1-udp-35155-0",
                                         "ip": "192.0.2.2", "port": "35155", "priority": "2113937151", "protocol": "udp",
                                         "type": "host", "network-cost": "999"])
        let group = try #require(element.child("group", namespace: "urn:xmpp:jingle:apps:grouping:0"))
        #expect(group[attribute: "semantics"] == "BUNDLE" && group.children.map { $0[attribute: "name"] } == ["0"])
    }

    /// XEP-0343's own example (sctpmap with streams, whitespace around the fingerprint) reads.
    @Test func readsTheXEPExample() throws {
        let xml = """
        <jingle xmlns='urn:xmpp:jingle:1' action='session-accept' initiator='romeo@montague.lit/orchard' responder='juliet@capulet.lit/balcony' sid='a73sjjvkla37jfea'>
          <content creator='initiator' name='data'>
            <description xmlns='urn:xmpp:jingle:transports:webrtc-datachannel:0'/>
            <transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' pwd='YH75Fviy6338Vbrhrlp8Yh' ufrag='9uB6'>
              <fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='actpass'>
                02:1A:CC:54:27:AB:EB:9C:53:3F:3E:4B:65:2E:7D:46:3F:54:42:CD:54:F1:7A:03:A2:7D:F9:B0:7F:46:19:B2
              </fingerprint>
              <sctpmap xmlns='urn:xmpp:jingle:transports:dtls-sctp:1' number='5000' protocol='webrtc-datachannel' streams='1024'/>
              <candidate component='1' foundation='1' generation='0' id='or2ii2syr1' ip='192.0.2.1' network='0' port='3478' priority='2130706431' protocol='udp' type='host'/>
              <unknown-extension xmlns='urn:example:ignored'/>
            </transport>
          </content>
        </jingle>
        """
        let request = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
        #expect(request.action == .sessionAccept)
        #expect(request.responder == "juliet@capulet.lit/balcony")
        let transport = try #require(request.session.contents.first?.transport)
        #expect(transport.sctp == JingleSCTP(port: 5000, streams: 1024))
        #expect(transport.fingerprints.first?.value.hasPrefix("02:1A:CC") == true)
        #expect(transport.candidates == [JingleICECandidate(foundation: "1", priority: 2_130_706_431, address: "192.0.2.1", port: 3478,
                                                            type: .host, networkID: 0)])
        let sdp = try request.session.sdp(writtenBy: .responder)
        #expect(sdp.contains("\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"))
        #expect(sdp.contains("\r\na=sctp-port:5000\r\n"))
        #expect(sdp.contains("\r\na=setup:actpass\r\n"))
        #expect(sdp.contains("\r\na=candidate:1 1 udp 2130706431 192.0.2.1 3478 typ host generation 0 network-id 0\r\n"))
    }
}

/// Trickle ICE: Chromium's `RTCIceCandidate`s -> transport-info XML -> back, unchanged.
@Suite struct TrickleTests {
    @Test(arguments: ["datachannel", "audio-video", "simulcast"])
    func chromiumCandidatesSurviveTransportInfo(scenario: String) throws {
        let captured = try Fixture.candidates(scenario)
        #expect(!captured.isEmpty)
        let trickled = try captured.map { try JingleTrickleCandidate(sdpCandidate: $0.candidate, sdpMid: $0.sdpMid, usernameFragment: $0.usernameFragment) }
        let request = JingleRequest.transportInfo(sessionID: "s1", candidates: trickled)
        let xml = request.element.xmlString()
        let read = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
        #expect(read.action == .transportInfo)
        let back = read.trickleCandidates
        #expect(back.map(\.sdpCandidate) == captured.map(\.candidate))
        #expect(back.map(\.contentName) == captured.map(\.sdpMid))
        #expect(back.map(\.usernameFragment) == captured.map { Optional($0.usernameFragment) })
    }

    /// Every field of a relay candidate over TCP, by hand from RFC 8839's grammar.
    @Test func relayCandidateFields() throws {
        let line = "candidate:3 1 tcp 41885695 203.0.113.7 50000 typ relay raddr 198.51.100.2 rport 4000 tcptype passive generation 1 ufrag Ab12 network-id 2 network-cost 10"
        let trickled = try JingleTrickleCandidate(sdpCandidate: line, sdpMid: "0")
        #expect(trickled.usernameFragment == "Ab12")
        #expect(trickled.candidate == JingleICECandidate(foundation: "3", component: 1, transportProtocol: "tcp", priority: 41_885_695,
                                                         address: "203.0.113.7", port: 50000, type: .relay, relatedAddress: "198.51.100.2",
                                                         relatedPort: 4000, tcpType: "passive", generation: 1, networkID: 2, networkCost: 10))
        #expect(trickled.sdpCandidate == line)
        #expect(try JingleICECandidate(element: trickled.candidate.element) == trickled.candidate)
    }

    @Test(arguments: [
        "candidate:1 1 udp 1 10.0.0.1 70000 typ host",           // port over 65535
        "candidate:1 0 udp 1 10.0.0.1 5000 typ host",            // component 0
        "candidate:1 1 sctp 1 10.0.0.1 5000 typ host",           // protocol
        "candidate:1 1 udp -1 10.0.0.1 5000 typ host",           // negative priority
        "candidate:1 1 udp 1 10.0.0.1 5000 type host",           // 'typ' missing
        "candidate:1 1 udp 1 10.0.0.1 5000 typ bogus",           // type
        "candidate:1 1 udp 1 10.0.0.1 5000 typ host generation", // extension without value
        "candidate:1 1 udp 1 10.0.0.1",                          // too short
        "1 1 udp 1 10.0.0.1 5000 typ host",                      // no 'candidate:'
    ])
    func badCandidateIsATypedError(line: String) {
        #expect(throws: JingleError.self) { try JingleTrickleCandidate(sdpCandidate: line, sdpMid: "0") }
    }
}
