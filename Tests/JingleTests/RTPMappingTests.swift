import Foundation
@testable import Jingle
import Testing
import XMPP

/// The RTP part of the mapping (XEP-0167, 0293, 0294, 0339, 0338 and the CallScope elements for
/// RIDs and simulcast) on Chromium's own offers and answers.
@Suite struct RTPMappingTests {
    static let fixtures: [(String, JingleRole, JingleAction)] = [
        ("chromium-audio-video-offer.sdp", .initiator, .sessionInitiate),
        ("chromium-audio-video-answer.sdp", .responder, .sessionAccept),
        ("chromium-simulcast-offer.sdp", .initiator, .sessionInitiate),
        ("chromium-simulcast-answer.sdp", .responder, .sessionAccept),
    ]

    /// SDP -> Jingle -> XML text -> Jingle -> SDP keeps every line that matters.
    @Test(arguments: fixtures.indices)
    func survivesTheTripThroughJingle(index: Int) throws {
        let (name, role, action) = Self.fixtures[index]
        let sdp = try Fixture.text(name)
        let (session, read, regenerated) = try DataChannelMappingTests.roundTrip(sdp, writtenBy: role, action: action)
        #expect(read.session == session, "\(name)")
        let before = SemanticSDP(sdp), after = SemanticSDP(regenerated)
        #expect(after == before, "\(name): lost \(Self.difference(before, after)), gained \(Self.difference(after, before))")
    }

    static func difference(_ left: SemanticSDP, _ right: SemanticSDP) -> [String] {
        var lines = Array(left.session.subtracting(right.session))
        for (index, section) in left.media.enumerated() {
            let other = index < right.media.count ? right.media[index].attributes : []
            lines += section.attributes.subtracting(other).sorted()
        }
        return lines
    }

    /// The values of the simulcast offer, read off the fixture by hand.
    @Test func simulcastOfferValues() throws {
        let session = try JingleSession(sdp: try Fixture.text("chromium-simulcast-offer.sdp"), writtenBy: .initiator)
        #expect(session.groups == [JingleGroup(semantics: "BUNDLE", contentNames: ["0", "1", "2"])])
        #expect(session.contents.map(\.name) == ["0", "1", "2"])
        // a=sendrecv on the audio, a=sendonly on the video, written by the initiator.
        #expect(session.contents.map(\.senders) == [.both, .initiator, .both])
        guard case .rtp(let audio) = session.contents[0].application, case .rtp(let video) = session.contents[1].application else {
            Issue.record("contents 0 and 1 are not RTP")
            return
        }
        #expect(session.contents[2].application == .dataChannel)
        #expect(audio.media == "audio" && video.media == "video")
        #expect(audio.payloadTypes.map(\.id) == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.payloadTypes[0] == JinglePayloadType(id: 111, name: "opus", clockRate: 48000, channels: 2,
                                                           parameters: [JingleParameter(name: "minptime", value: "10"),
                                                                        JingleParameter(name: "useinbandfec", value: "1")],
                                                           feedback: [JingleRTCPFeedback(type: "transport-cc")]))
        #expect(audio.payloadTypes[1].parameters == [JingleParameter(name: "", value: "111/111")])   // RED's fmtp
        #expect(audio.rtcpMux && audio.reducedSizeRTCP && audio.allowsMixedHeaderExtensions)
        #expect(audio.headerExtensions.first == JingleHeaderExtension(id: 1, uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level"))
        #expect(audio.sources == [JingleSource(ssrc: 440_162_331, parameters: [
            JingleParameter(name: "cname", value: "Wxw36ncnG3JBMJCT"),
            JingleParameter(name: "msid", value: "4f2f592c-fd7d-4855-b39b-3ad38a986aa4 3cfe9c45-8438-4018-859c-4b535e450363"),
        ])])
        #expect(audio.otherAttributes == ["rtcp-xr:rcvr-rtt=all"])
        #expect(video.payloadTypes.count == 23)
        #expect(video.payloadTypes[0].feedback == [JingleRTCPFeedback(type: "goog-remb"), JingleRTCPFeedback(type: "transport-cc"),
                                                   JingleRTCPFeedback(type: "ccm", subtype: "fir"), JingleRTCPFeedback(type: "nack"),
                                                   JingleRTCPFeedback(type: "nack", subtype: "pli")])
        #expect(video.payloadTypes[1] == JinglePayloadType(id: 97, name: "rtx", clockRate: 90000, parameters: [JingleParameter(name: "apt", value: "96")]))
        #expect(video.headerExtensions.count == 13)
        #expect(video.sources.isEmpty)   // simulcast by RID: Chromium writes no SSRC
        #expect(video.rids == [JingleRID(id: "q", direction: .send), JingleRID(id: "h", direction: .send), JingleRID(id: "f", direction: .send)])
        #expect(video.simulcast == JingleSimulcast(send: "q;h;f"))
        #expect(video.streamID == "4f2f592c-fd7d-4855-b39b-3ad38a986aa4 12a7a10b-48d0-4679-b5e6-e6ebb6d44403")
    }

    /// The FID group of the non-simulcast video, and the answer's recvonly from the responder.
    @Test func audioVideoSourcesAndDirections() throws {
        let offer = try JingleSession(sdp: try Fixture.text("chromium-audio-video-offer.sdp"), writtenBy: .initiator)
        guard case .rtp(let video) = offer.contents[1].application else { Issue.record("no video"); return }
        #expect(video.sourceGroups == [JingleSourceGroup(semantics: "FID", ssrcs: [1_534_245_980, 2_302_560_125])])
        #expect(video.sources.map(\.ssrc) == [1_534_245_980, 2_302_560_125])
        let simulcastAnswer = try JingleSession(sdp: try Fixture.text("chromium-simulcast-answer.sdp"), writtenBy: .responder)
        // The answerer only receives the video: recvonly written by the responder = initiator sends.
        #expect(simulcastAnswer.contents[1].senders == .initiator)
        #expect(try simulcastAnswer.sdp(writtenBy: .responder).contains("a=mid:1\r\n"))
    }

    /// Directions both ways, by the table of RFC 3264 and XEP-0167 `senders`.
    @Test(arguments: [
        (JingleSenders.both, JingleRole.initiator, "sendrecv"), (.none, .initiator, "inactive"),
        (.initiator, .initiator, "sendonly"), (.responder, .initiator, "recvonly"),
        (.initiator, .responder, "recvonly"), (.responder, .responder, "sendonly"),
    ])
    func directions(senders: JingleSenders, role: JingleRole, direction: String) throws {
        #expect(JingleRTPDescription.direction(senders, writtenBy: role) == direction)
        let sdp = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:a\r\na=\(direction)\r\n"
        #expect(try JingleSession(sdp: sdp, writtenBy: role).contents.first?.senders == senders)
    }

    /// XEP-0167's own session-initiate example reads, and writes back to the same values.
    @Test func xep0167ExampleRoundTrips() throws {
        let xml = """
        <jingle xmlns='urn:xmpp:jingle:1' action='session-initiate' initiator='romeo@montague.lit/orchard' sid='a73sjjvkla37jfea'>
          <content creator='initiator' name='voice'>
            <description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'>
              <payload-type id='96' name='speex' clockrate='16000'/>
              <payload-type id='97' name='speex' clockrate='8000'/>
              <payload-type id='18' name='G729'/>
              <payload-type id='0' name='PCMU'/>
              <payload-type id='103' name='L16' clockrate='16000' channels='2'/>
              <payload-type id='98' name='x-ISAC' clockrate='8000'/>
              <rtcp-fb xmlns='urn:xmpp:jingle:apps:rtp:rtcp-fb:0' type='nack' subtype='pli'/>
              <rtp-hdrext xmlns='urn:xmpp:jingle:apps:rtp:rtp-hdrext:0' id='1' uri='urn:ietf:params:rtp-hdrext:toffset' senders='initiator'/>
              <source xmlns='urn:xmpp:jingle:apps:rtp:ssma:0' ssrc='1656081975'><parameter name='cname' value='Yv/wvbCdsDW2Prgd'/></source>
            </description>
            <transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' pwd='asd88fgpdd777uzjYhagZg' ufrag='8hhy'>
              <candidate component='1' foundation='2' generation='0' id='y3s2b30v3r' ip='192.0.2.3' network='1' port='45664' priority='1694498815' protocol='udp' rel-addr='10.0.1.1' rel-port='8998' type='srflx'/>
            </transport>
          </content>
        </jingle>
        """
        let request = try JingleRequest(element: try XMPPElementReader.read(Array(xml.utf8)))
        guard case .rtp(let audio) = request.session.contents.first?.application else { Issue.record("no RTP"); return }
        #expect(audio.payloadTypes.map(\.id) == [96, 97, 18, 0, 103, 98])
        #expect(audio.payloadTypes[2] == JinglePayloadType(id: 18, name: "G729"))
        #expect(audio.payloadTypes[4].channels == 2)
        #expect(audio.feedback == [JingleRTCPFeedback(type: "nack", subtype: "pli")])
        #expect(audio.headerExtensions == [JingleHeaderExtension(id: 1, uri: "urn:ietf:params:rtp-hdrext:toffset", senders: .initiator)])
        #expect(!audio.rtcpMux)
        let again = try JingleRequest(element: try XMPPElementReader.read(Array(request.element.xmlString().utf8)))
        #expect(again == request)
        let sdp = try request.session.sdp(writtenBy: .initiator)
        #expect(sdp.contains("\r\nm=audio 9 UDP/TLS/RTP/SAVPF 96 97 18 0 103 98\r\n"))
        #expect(sdp.contains("\r\na=rtpmap:18 G729\r\n"))          // no clock rate given: none written
        #expect(sdp.contains("\r\na=rtpmap:103 L16/16000/2\r\n"))
        #expect(sdp.contains("\r\na=rtcp-fb:* nack pli\r\n"))
        #expect(sdp.contains("\r\na=extmap:1/sendonly urn:ietf:params:rtp-hdrext:toffset\r\n"))
        #expect(sdp.contains("\r\na=ssrc:1656081975 cname:Yv/wvbCdsDW2Prgd\r\n"))
        #expect(sdp.contains("\r\na=candidate:2 1 udp 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998 generation 0 network-id 1\r\n"))
    }

    /// session-terminate with a reason, content-remove without description or transport.
    @Test func terminateAndContentRemove() throws {
        let terminate = JingleRequest(action: .sessionTerminate, sessionID: "s1", reason: JingleReason(.success, text: "bye"))
        #expect(terminate.element.xmlString() == "<jingle xmlns=\"urn:xmpp:jingle:1\" action=\"session-terminate\" sid=\"s1\"><reason><success/><text>bye</text></reason></jingle>")
        #expect(try JingleRequest(element: terminate.element) == terminate)
        let remove = JingleRequest(action: .contentRemove, sessionID: "s1", session: JingleSession(contents: [JingleContent(name: "2")]))
        #expect(remove.element.xmlString() == "<jingle xmlns=\"urn:xmpp:jingle:1\" action=\"content-remove\" sid=\"s1\"><content creator=\"initiator\" name=\"2\"/></jingle>")
        #expect(try JingleRequest(element: remove.element) == remove)
    }
}

/// XEP-0353 messages: values to XML and back, against the XEP's examples.
@Suite struct JingleMessageTests {
    @Test func proposeReadsTheXEPExample() throws {
        let xml = "<propose xmlns='urn:xmpp:jingle-message:0' id='ca3cf894-5325-482f-a412-a6e9f832298d'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'/></propose>"
        let message = try JingleMessage(element: try XMPPElementReader.read(Array(xml.utf8)))
        #expect(message == JingleMessage(.propose, sessionID: "ca3cf894-5325-482f-a412-a6e9f832298d", proposedApplications: [.rtp(media: "audio")]))
    }

    @Test func rejectReadsTheXEPExample() throws {
        let xml = "<reject xmlns='urn:xmpp:jingle-message:0' id='ca3'><reason xmlns='urn:xmpp:jingle:1'><busy/><text>Busy</text></reason></reject>"
        let message = try JingleMessage(element: try XMPPElementReader.read(Array(xml.utf8)))
        #expect(message == JingleMessage(.reject, sessionID: "ca3", reason: JingleReason(.busy, text: "Busy")))
    }

    @Test(arguments: JingleMessage.Kind.allCases)
    func everyKindRoundTrips(kind: JingleMessage.Kind) throws {
        let message = JingleMessage(kind, sessionID: "id-1", proposedApplications: kind == .propose ? [.rtp(media: "audio"), .rtp(media: "video"), .dataChannel] : [],
                                    reason: [.reject, .retract, .finish].contains(kind) ? JingleReason(.cancel) : nil)
        let text = message.element.xmlString()
        #expect(text.hasPrefix("<\(kind.rawValue) xmlns=\"urn:xmpp:jingle-message:0\" id=\"id-1\""))
        #expect(try JingleMessage(element: try XMPPElementReader.read(Array(text.utf8))) == message)
    }

    @Test(arguments: [
        "<propose xmlns='urn:xmpp:jingle-message:0'/>",                              // no id
        "<propose xmlns='urn:xmpp:jingle-message:1' id='a'/>",                       // other namespace
        "<ring xmlns='urn:xmpp:jingle-message:0' id='a'/>",                          // unknown kind
        "<propose xmlns='urn:xmpp:jingle-message:0' id='a'><description xmlns='urn:xmpp:jingle:apps:rtp:1'/></propose>",  // no media
    ])
    func hostileMessageIsATypedError(xml: String) throws {
        let element = try XMPPElementReader.read(Array(xml.utf8))
        #expect(throws: JingleError.self) { try JingleMessage(element: element) }
    }
}
