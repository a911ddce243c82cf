import CallScopeCore
import Foundation
@testable import Jingle
import Testing
import XMPP

/// Hostile or broken Jingle XML and SDP: each is a typed error with the expected code, never a
/// crash, a hang or a silently wrong value.
@Suite struct HostileInputTests {
    static let candidate = "<candidate component='1' foundation='1' generation='0' id='c' ip='192.0.2.1' port='9' priority='1' protocol='udp' type='host'/>"

    /// A session-initiate around `content` (one content's children).
    static func jingle(_ inner: String, attributes: String = "action='session-initiate' sid='s1'") -> String {
        "<jingle xmlns='urn:xmpp:jingle:1' \(attributes)>\(inner)</jingle>"
    }

    static func content(_ transport: String, description: String = "<description xmlns='urn:xmpp:jingle:transports:webrtc-datachannel:0'/>",
                        attributes: String = "creator='initiator' name='0'") -> String {
        "<content \(attributes)>\(description)<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u' pwd='p'>\(transport)</transport></content>"
    }

    static func rtp(_ inner: String) -> String {
        content("", description: "<description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'>\(inner)</description>")
    }

    static let xmlCases: [(String, String, ErrorCode<JingleError>)] = [
        ("no action", jingle("", attributes: "sid='s1'"), .malformedJingle),
        ("unknown action", jingle("", attributes: "action='session-explode' sid='s1'"), .malformedJingle),
        ("no sid", jingle("", attributes: "action='session-initiate'"), .malformedJingle),
        ("sid with a space", jingle("", attributes: "action='session-initiate' sid='a b'"), .malformedJingle),
        ("content without creator", jingle(content("", attributes: "name='0'")), .malformedJingle),
        ("creator bogus", jingle(content("", attributes: "creator='mallory' name='0'")), .malformedJingle),
        ("senders bogus", jingle(content("", attributes: "creator='initiator' name='0' senders='all'")), .malformedJingle),
        ("content without name", jingle(content("", attributes: "creator='initiator'")), .malformedJingle),
        ("two contents one name", jingle(content("") + content("")), .malformedJingle),
        ("candidate port 70000", jingle(content(candidate.replacingOccurrences(of: "port='9'", with: "port='70000'"))), .malformedJingle),
        ("candidate port negative", jingle(content(candidate.replacingOccurrences(of: "port='9'", with: "port='-9'"))), .malformedJingle),
        ("candidate without ip", jingle(content(candidate.replacingOccurrences(of: "ip='192.0.2.1'", with: ""))), .malformedJingle),
        ("candidate ip with a line break", jingle(content(candidate.replacingOccurrences(of: "ip='192.0.2.1'", with: "ip='1.2.3.4&#10;a=evil'"))), .malformedJingle),
        ("candidate type bogus", jingle(content(candidate.replacingOccurrences(of: "type='host'", with: "type='wormhole'"))), .malformedJingle),
        ("candidate component 0", jingle(content(candidate.replacingOccurrences(of: "component='1'", with: "component='0'"))), .malformedJingle),
        ("candidate priority huge", jingle(content(candidate.replacingOccurrences(of: "priority='1'", with: "priority='99999999999999999999999'"))), .malformedJingle),
        ("65 candidates", jingle(content(String(repeating: candidate, count: 65))), .limitExceeded),
        ("fingerprint setup bogus", jingle(content("<fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='both'>AB:CD</fingerprint>")), .malformedJingle),
        ("fingerprint not hex", jingle(content("<fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='active'>zz:top</fingerprint>")), .malformedJingle),
        ("fingerprint without hash", jingle(content("<fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' setup='active'>AB</fingerprint>")), .malformedJingle),
        ("sctpmap without number", jingle(content("<sctpmap xmlns='urn:xmpp:jingle:transports:dtls-sctp:1' protocol='webrtc-datachannel'/>")), .malformedJingle),
        ("sctpmap other protocol", jingle(content("<sctpmap xmlns='urn:xmpp:jingle:transports:dtls-sctp:1' number='5000' protocol='bfcp'/>")), .unsupported),
        ("transport not ICE-UDP", jingle("<content creator='initiator' name='0'><transport xmlns='urn:xmpp:jingle:transports:s5b:1'/></content>"), .unsupported),
        ("payload type 128", jingle(rtp("<payload-type id='128' name='x' clockrate='90000'/>")), .malformedJingle),
        ("payload type not a number", jingle(rtp("<payload-type id='opus' clockrate='48000'/>")), .malformedJingle),
        ("payload type without id", jingle(rtp("<payload-type name='opus' clockrate='48000'/>")), .malformedJingle),
        ("clock rate with a sign", jingle(rtp("<payload-type id='111' name='opus' clockrate='+48000'/>")), .malformedJingle),
        ("129 payload types", jingle(rtp(String(repeating: "<payload-type id='96' name='VP8' clockrate='90000'/>", count: 129))), .limitExceeded),
        ("33 parameters", jingle(rtp("<payload-type id='96' name='VP8'>" + String(repeating: "<parameter name='a' value='1'/>", count: 33) + "</payload-type>")), .limitExceeded),
        ("header extension id 0", jingle(rtp("<rtp-hdrext xmlns='urn:xmpp:jingle:apps:rtp:rtp-hdrext:0' id='0' uri='urn:x'/>")), .malformedJingle),
        ("header extension id 256", jingle(rtp("<rtp-hdrext xmlns='urn:xmpp:jingle:apps:rtp:rtp-hdrext:0' id='256' uri='urn:x'/>")), .malformedJingle),
        ("source without ssrc", jingle(rtp("<source xmlns='urn:xmpp:jingle:apps:rtp:ssma:0'/>")), .malformedJingle),
        ("ssrc over 32 bits", jingle(rtp("<source xmlns='urn:xmpp:jingle:apps:rtp:ssma:0' ssrc='4294967296'/>")), .malformedJingle),
        ("rid direction bogus", jingle(rtp("<rid xmlns='urn:callscope:jingle:sdp:0' id='q' direction='sideways'/>")), .malformedJingle),
        ("description without media", jingle(content("", description: "<description xmlns='urn:xmpp:jingle:apps:rtp:1'/>")), .malformedJingle),
        ("reason without condition", jingle("<reason><text>why</text></reason>", attributes: "action='session-terminate' sid='s1'"), .malformedJingle),
        ("not a jingle element", "<jingle xmlns='urn:example:other' action='session-initiate' sid='s1'/>", .malformedJingle),
    ]

    @Test(arguments: xmlCases.indices)
    func hostileXMLIsATypedError(index: Int) throws {
        let (name, xml, code) = Self.xmlCases[index]
        let element = try XMPPElementReader.read(Array(xml.utf8))
        do {
            let request = try JingleRequest(element: element)
            Issue.record("\(name): read as \(request)")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
        }
    }

    /// Unknown elements and attributes are ignored (XEP-0166 §8), an unknown application is
    /// kept by namespace (to answer unsupported-applications), an unknown reason kept by name.
    @Test func unknownElementsAreIgnored() throws {
        let xml = Self.jingle(
            "<content creator='initiator' name='0' color='blue'><description xmlns='urn:example:app'/><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u' pwd='p'>"
                + Self.candidate + "<extra xmlns='urn:example:x'/></transport><gadget xmlns='urn:example:y'/></content><reason><frobnicated xmlns='urn:xmpp:jingle:1'/></reason>")
        let request = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
        #expect(request.session.contents.first?.application == .other(namespace: "urn:example:app"))
        #expect(request.session.contents.first?.transport?.candidates.count == 1)
        #expect(request.reason?.condition.rawValue == "frobnicated")
        #expect(throws: JingleError.self) { try request.session.sdp(writtenBy: .initiator) }
    }

    static let sdpHead = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    static let dataSection = "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=sctp-port:5000\r\n"
    static let audioSection = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\n"

    static let sdpCases: [(String, String, ErrorCode<JingleError>)] = [
        ("empty", "", .malformedSDP),
        ("not SDP", "hello world\r\n", .malformedSDP),
        ("no m-line", sdpHead, .malformedSDP),
        ("m-line port 99999", sdpHead + dataSection.replacingOccurrences(of: " 9 ", with: " 99999 "), .malformedSDP),
        ("m-line too short", sdpHead + "m=audio 9\r\na=mid:0\r\n", .malformedSDP),
        ("no mid", sdpHead + dataSection.replacingOccurrences(of: "a=mid:0\r\n", with: ""), .malformedSDP),
        ("two mids alike", sdpHead + dataSection + dataSection, .malformedSDP),
        ("sctp-port not a number", sdpHead + dataSection.replacingOccurrences(of: "5000", with: "five"), .malformedSDP),
        ("payload type 300", sdpHead + audioSection.replacingOccurrences(of: "SAVPF 111", with: "SAVPF 300"), .malformedSDP),
        ("rtpmap without rate", sdpHead + audioSection.replacingOccurrences(of: "opus/48000/2", with: "opus"), .malformedSDP),
        ("rtpmap rate not a number", sdpHead + audioSection.replacingOccurrences(of: "48000", with: "fast"), .malformedSDP),
        ("fingerprint not hex", sdpHead + audioSection + "a=fingerprint:sha-256 not-hex\r\n", .malformedSDP),
        ("setup bogus", sdpHead + audioSection + "a=setup:maybe\r\n", .malformedSDP),
        ("candidate broken", sdpHead + audioSection + "a=candidate:1 1 udp x 1.2.3.4 9 typ host\r\n", .malformedSDP),
        ("ssrc not a number", sdpHead + audioSection + "a=ssrc:abc cname:x\r\n", .malformedSDP),
        ("extmap id 0", sdpHead + audioSection + "a=extmap:0 urn:x\r\n", .malformedSDP),
        ("extmap id only a slash", sdpHead + audioSection + "a=extmap:/ urn:x\r\n", .malformedSDP),
        ("extmap direction without id", sdpHead + audioSection + "a=extmap:/sendonly urn:x\r\n", .malformedSDP),
        ("simulcast direction bogus", sdpHead + audioSection + "a=simulcast:up q;h\r\n", .malformedSDP),
        ("video over something else", sdpHead + "m=video 9 TCP/MSRP *\r\na=mid:0\r\n", .unsupported),
        ("33 m-lines", sdpHead + (0..<33).map { "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:\($0)\r\n" }.joined(), .limitExceeded),
        ("65 candidates", sdpHead + dataSection + String(repeating: "a=candidate:1 1 udp 1 192.0.2.1 9 typ host\r\n", count: 65), .limitExceeded),
        ("over 256 KiB", sdpHead + String(repeating: "a=x-filler:" + String(repeating: "y", count: 1000) + "\r\n", count: 300), .limitExceeded),
        ("NUL in a line", sdpHead + dataSection + "a=x\0y\r\n", .malformedSDP),
    ]

    @Test(arguments: sdpCases.indices)
    func hostileSDPIsATypedError(index: Int) {
        let (name, sdp, code) = Self.sdpCases[index]
        do {
            let session = try JingleSession(sdp: sdp, writtenBy: .initiator)
            Issue.record("\(name): read as \(session)")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
        }
    }

    /// Seeded random byte flips of a real offer: every outcome is a value or a typed error, and a
    /// value always writes back to SDP and XML that read again.
    @Test func mutatedOffersNeverTrap() throws {
        let offer = Array(try Fixture.text("chromium-simulcast-offer.sdp").utf8)
        var generator = SplitMix64(seed: 24)
        var readCount = 0
        for _ in 0..<400 {
            var bytes = offer
            for _ in 0..<Int(generator.next() % 8 + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: ":"), UInt8(ascii: "9"), 0xFF, UInt8(ascii: "x")][Int(generator.next() % 6)]
            }
            guard let session = try? JingleSession(sdp: String(decoding: bytes, as: UTF8.self), writtenBy: .initiator) else { continue }
            readCount += 1
            let xml = JingleRequest(action: .sessionInitiate, sessionID: "s", session: session).element.xmlString()
            let reread = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
            #expect(reread.session == session)
            _ = try session.sdp(writtenBy: .initiator)
        }
        #expect(readCount > 0)
    }
}

/// A small seeded generator (SplitMix64), so the mutations are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
