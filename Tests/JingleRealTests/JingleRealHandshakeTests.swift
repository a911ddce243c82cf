import Foundation
import Jingle
import Testing
import XMPP

/// A real two-PC handshake through the mapping: Chromium's offer becomes a Jingle
/// session-initiate, travels as XML text, is read back and turned into the SDP the answering
/// Chromium gets; its answer goes back the same way as a session-accept. The data channel must
/// open and carry a message both ways; with media, the receivers must be live. Gated by
/// CALLSCOPE_REAL=1 (Scripts/test.sh), under the rig lock.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1"))
struct JingleRealHandshakeTests {
    /// `sdp` (written by `role`) -> Jingle -> XML text -> Jingle -> SDP, as two XMPP peers would
    /// carry it.
    ///
    /// `foreign`: the XML loses every element of CallScope's own namespace on the way (RIDs,
    /// simulcast, media msid, rtcp-rsize, verbatim attributes), as from a Jingle client that
    /// knows only the XEPs: what Chromium gets must still negotiate.
    /// An answer (`offer` given) is written with `sdp(answering:)`, which restores the m-lines
    /// the answer rejected.
    /// `change` edits the session on the way, as a remote client offering something else would.
    static func throughJingle(_ sdp: String, writtenBy role: JingleRole, action: JingleAction, foreign: Bool = false,
                              offer: String? = nil, change: (inout JingleSession) -> Void = { _ in }) throws -> String {
        var session = try JingleSession(sdp: sdp, writtenBy: role)
        change(&session)
        let request = JingleRequest(action: action, sessionID: "callscope-real", initiator: "alice@callscope.example/a",
                                    responder: role == .responder ? "bob@callscope.example/b" : nil, session: session)
        var element = try XMPPElementReader.read(Array(request.element.xmlString().utf8))
        if foreign { element = withoutCallScopeElements(element) }
        let received = try JingleRequest(element: element)
        if !foreign { #expect(received == request) }
        if let offer { return try received.session.sdp(answering: try JingleSession(sdp: offer, writtenBy: .initiator), sessionID: 7, sessionVersion: 2) }
        return try received.session.sdp(writtenBy: role, sessionID: 7, sessionVersion: 2)
    }

    static func withoutCallScopeElements(_ element: XMPPElement) -> XMPPElement {
        var copy = element
        copy.children = element.children.filter { $0.namespace != "urn:callscope:jingle:sdp:0" }.map(withoutCallScopeElements)
        return copy
    }

    /// Browser candidates (`RTCIceCandidate.toJSON()`) -> one transport-info as XML text -> read
    /// back -> `RTCIceCandidateInit`s with `candidate` and `sdpMid` only.
    static func throughTransportInfo(_ candidates: [[String: Any]], creator: JingleRole) throws -> [[String: String]] {
        let trickled = try candidates.map { candidate in
            try JingleTrickleCandidate(sdpCandidate: candidate["candidate"] as? String ?? "", sdpMid: candidate["sdpMid"] as? String ?? "",
                                       usernameFragment: candidate["usernameFragment"] as? String)
        }
        let info = JingleRequest.transportInfo(sessionID: "callscope-real", creator: creator, candidates: trickled)
        let received = try JingleRequest(element: try XMPPElementReader.read(Array(info.element.xmlString().utf8)))
        #expect(received.trickleCandidates == trickled)
        return received.trickleCandidates.map { ["candidate": $0.sdpCandidate, "sdpMid": $0.contentName] }
    }

    @Test func handshakesThroughJingle() throws {
        let peers = try BrowserPeers()
        defer { peers.close() }
        for (scenario, foreign) in [("datachannel", false), ("datachannel-trickle", false), ("simulcast", false), ("audio-video", false),
                                    ("audio-video", true), ("reject-video", false)] {
            let offer = try #require(try peers.request(["scenario": scenario])["offer"] as? String)
            let remoteOffer = try Self.throughJingle(offer, writtenBy: .initiator, action: .sessionInitiate, foreign: foreign) { session in
                // reject-video: the video is offered with only a codec Chromium does not have.
                guard scenario == "reject-video", case .rtp(var video) = session.contents[1].application else { return }
                video.payloadTypes = [JinglePayloadType(id: 96, name: "x-callscope-unknown", clockRate: 90000)]
                session.contents[1].application = .rtp(video)
            }
            if foreign { #expect(!remoteOffer.contains("a=rtcp-rsize") && !remoteOffer.contains("a=msid:")) }
            let answer = try #require(try peers.request(["remoteOffer": remoteOffer])["answer"] as? String)
            let remoteAnswer = try Self.throughJingle(answer, writtenBy: .responder, action: .sessionAccept, foreign: foreign, offer: offer)
            if scenario == "reject-video" {
                // Chromium's answer refuses the video with port 0; the session-accept leaves it out;
                // the SDP for the offerer must have it back, rejected.
                #expect(answer.contains("\r\nm=video 0 "))
                #expect(try JingleSession(sdp: answer, writtenBy: .responder).contents.map(\.name) == ["0"])
                #expect(remoteAnswer.contains("\r\nm=video 0 "))
            }
            var finish: [String: Any] = ["remoteAnswer": remoteAnswer]
            if scenario.hasSuffix("-trickle") {
                #expect(!offer.contains("a=candidate:") && !answer.contains("a=candidate:"), "trickle: no candidate in the descriptions")
                let gathered = try peers.request(["candidates": true])
                let offerer = gathered["offerer"] as? [[String: Any]] ?? [], answerer = gathered["answerer"] as? [[String: Any]] ?? []
                #expect(!offerer.isEmpty && !answerer.isEmpty)
                finish["forAnswerer"] = try Self.throughTransportInfo(offerer, creator: .initiator)
                finish["forOfferer"] = try Self.throughTransportInfo(answerer, creator: .initiator)
            }
            let result = try #require(try peers.request(finish)["result"] as? [String: Any])
            print("JingleRealHandshakeTests \(scenario)\(foreign ? " (XEP elements only)" : ""): \(result)")
            if scenario.hasPrefix("datachannel") || scenario == "simulcast" {
                #expect(result["echo"] as? String == "echo:hello", "\(scenario): \(result)")
            }
            if scenario.hasSuffix("-trickle") { #expect(result["trickled"] as? Int ?? 0 >= 2, "\(result)") }
            let connected: Set<String> = ["connected", "completed"]
            #expect(connected.contains(result["offererIce"] as? String ?? ""), "\(scenario): \(result)")
            #expect(connected.contains(result["answererIce"] as? String ?? ""), "\(scenario): \(result)")
            if scenario == "reject-video" {
                let answererPackets = result["answererPackets"] as? [String: Int] ?? [:]
                let offererPackets = result["offererPackets"] as? [String: Int] ?? [:]
                #expect(answererPackets["audio", default: 0] > 0 && offererPackets["audio", default: 0] > 0, "\(result)")
            } else if !scenario.hasPrefix("datachannel") {
                // RTP flowed offerer -> answerer for both kinds (and back, with two-way media).
                let answererPackets = result["answererPackets"] as? [String: Int] ?? [:]
                #expect(answererPackets["audio", default: 0] > 0 && answererPackets["video", default: 0] > 0, "\(scenario): \(result)")
            }
            if scenario == "audio-video" {
                let offererPackets = result["offererPackets"] as? [String: Int] ?? [:]
                #expect(offererPackets["audio", default: 0] > 0 && offererPackets["video", default: 0] > 0, "\(result)")
            }
        }
    }
}
