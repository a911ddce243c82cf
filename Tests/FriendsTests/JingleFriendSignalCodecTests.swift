import Calls
import Foundation
@testable import Friends
import Jingle
import Testing
import XMPP

/// The friend signalling codec on a real Chromium data-channel offer and answer (the Jingle
/// tests' fixtures): each signal to its Jingle element and back, with the values that must
/// survive read from the fixture by hand; hostile and unsupported payloads refused.
@Suite struct JingleFriendSignalCodecTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JingleTests/Fixtures")
    static let alice = JID("alice@example.org/phone")!
    static let bob = JID("bob@example.org/laptop")!
    let codec = JingleFriendSignalCodec()

    static func fixture(_ name: String) throws -> String { try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8) }

    /// The SDP lines that carry the friend connection, as a set.
    static func lines(_ sdp: String, _ prefixes: [String]) -> Set<String> {
        Set(sdp.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in prefixes.contains { line.hasPrefix($0) } })
    }

    private func roundTrip(_ signal: FriendSignal) throws -> FriendSignal {
        let element = try codec.element(for: signal, from: Self.alice, to: Self.bob)
        #expect(element.name == "jingle" && element.namespace == "urn:xmpp:jingle:1")
        // Through the XML text and the reader, as it travels.
        let reread = try XMPPElementReader.read(Array(element.xmlString().utf8), limits: XMPPReadLimits())
        return try codec.signal(from: reread).get()
    }

    @Test func offerIsASessionInitiateAndComesBack() throws {
        let sdp = try Self.fixture("chromium-datachannel-offer.sdp")
        let element = try codec.element(for: .offer(sid: "s1", SessionDescription(kind: .offer, sdp: sdp)), from: Self.alice, to: Self.bob)
        #expect(element.attributes["action"] == "session-initiate")
        #expect(element.attributes["initiator"] == "alice@example.org/phone")
        guard case .offer(let sid, let back) = try roundTrip(.offer(sid: "s1", SessionDescription(kind: .offer, sdp: sdp))) else {
            Issue.record("not an offer")
            return
        }
        #expect(sid == "s1")
        #expect(back.kind == .offer)
        // From the fixture: ICE credentials, DTLS fingerprint and role, the data channel's m-line, mid, SCTP port, message size.
        let expected: Set<String> = [
            "a=ice-ufrag:qdij", "a=ice-pwd:YyhnSzIrW7UEornrMqh7FAqQ",
            "a=fingerprint:sha-256 20:D2:74:B7:D5:C1:3E:C1:66:6B:E9:9A:91:D6:07:03:6C:C6:F2:7D:CF:2C:CF:CF:26:02:C8:B8:77:77:B5:C9",
            "a=setup:actpass", "a=mid:0", "a=sctp-port:5000", "a=max-message-size:262144",
        ]
        #expect(Self.lines(back.sdp, ["a=ice-ufrag", "a=ice-pwd", "a=fingerprint", "a=setup", "a=mid", "a=sctp-port", "a=max-message-size"]) == expected)
        #expect(back.sdp.contains("UDP/DTLS/SCTP webrtc-datachannel"))
    }

    @Test func answerIsASessionAcceptAndComesBack() throws {
        let sdp = try Self.fixture("chromium-datachannel-answer.sdp")
        let element = try codec.element(for: .answer(sid: "s1", SessionDescription(kind: .answer, sdp: sdp)), from: Self.bob, to: Self.alice)
        #expect(element.attributes["action"] == "session-accept")
        #expect(element.attributes["responder"] == "bob@example.org/laptop")
        guard case .answer(_, let back) = try roundTrip(.answer(sid: "s1", SessionDescription(kind: .answer, sdp: sdp))) else {
            Issue.record("not an answer")
            return
        }
        let prefixes = ["a=ice-ufrag", "a=ice-pwd", "a=fingerprint", "a=setup", "a=mid", "a=sctp-port"]
        #expect(Self.lines(back.sdp, prefixes) == Self.lines(sdp, prefixes))
        #expect(Self.lines(back.sdp, ["a=setup"]) == ["a=setup:active"] || Self.lines(back.sdp, ["a=setup"]) == ["a=setup:passive"])
    }

    /// A trickled candidate as Chromium gives it, in a transport-info, and back with the same fields.
    @Test func candidateIsATransportInfoAndComesBack() throws {
        let text = "candidate:91395308 1 udp 2113937151 192.0.2.2 35155 typ host generation 0 ufrag qdij network-cost 999"
        let signal = FriendSignal.candidates(sid: "s1", [IceCandidate(candidate: text, sdpMid: "0", sdpMLineIndex: 0)])
        #expect(try codec.element(for: signal, from: Self.alice, to: Self.bob).attributes["action"] == "transport-info")
        guard case .candidates(let sid, let back) = try roundTrip(signal), let candidate = back.first else {
            Issue.record("no candidates")
            return
        }
        #expect(sid == "s1" && back.count == 1)
        #expect(candidate.sdpMid == "0")
        let fields = candidate.candidate.split(separator: " ").map(String.init)
        // foundation, component, protocol, priority, address, port, "typ", type; then ufrag qdij.
        #expect(Array(fields.prefix(8)) == ["candidate:91395308", "1", "udp", "2113937151", "192.0.2.2", "35155", "typ", "host"])
        #expect(fields.firstIndex(of: "ufrag").map { fields[$0 + 1] } == "qdij")
    }

    @Test func terminateCarriesItsReason() throws {
        #expect(try roundTrip(.terminate(sid: "s1", reason: "gone")) == .terminate(sid: "s1", reason: "gone"))
        #expect(try roundTrip(.terminate(sid: "s1", reason: "connectivity-error")) == .terminate(sid: "s1", reason: "connectivity-error"))
    }

    /// (payload XML, the stanza error condition it is refused with).
    static let refused: [(String, String)] = [
        ("<jingle xmlns='urn:xmpp:jingle:1' action='session-initiate'/>", "bad-request"),                       // no sid
        ("<jingle xmlns='urn:xmpp:jingle:1' action='take-over' sid='s1'/>", "bad-request"),                      // no such action
        ("<jingle xmlns='urn:xmpp:jingle:1' action='session-info' sid='s1'/>", "feature-not-implemented"),       // not used by friend connections
        ("<jingle xmlns='urn:xmpp:jingle:1' action='content-add' sid='s1'/>", "feature-not-implemented"),
        ("<jingle xmlns='urn:xmpp:jingle:1' action='session-initiate' sid='s1'><content creator='initiator' name='0'>"
         + "<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='a' pwd='b'><candidate component='x' foundation='1' generation='0' id='c' ip='192.0.2.1' port='1' priority='1' protocol='udp' type='host'/></transport></content></jingle>",
         "bad-request"),                                                                                          // a bad number
    ]

    @Test(arguments: refused.indices)
    func hostileOrUnsupportedPayloadsAreRefused(_ index: Int) throws {
        let (xml, condition) = Self.refused[index]
        let element = try XMPPElementReader.read(Array(xml.utf8), limits: XMPPReadLimits())
        switch codec.signal(from: element) {
        case .success(let signal): Issue.record("accepted \(signal)")
        case .failure(let refusal): #expect(refusal.condition == condition)
        }
    }
}
