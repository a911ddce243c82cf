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
    static func throughJingle(_ sdp: String, writtenBy role: JingleRole, action: JingleAction) throws -> String {
        let session = try JingleSession(sdp: sdp, writtenBy: role)
        let request = JingleRequest(action: action, sessionID: "callscope-real", initiator: "alice@callscope.example/a",
                                    responder: role == .responder ? "bob@callscope.example/b" : nil, session: session)
        let received = try JingleRequest(element: try XMPPElementReader.read(Array(request.element.xmlString().utf8)))
        #expect(received == request)
        return try received.session.sdp(writtenBy: role, sessionID: 7, sessionVersion: 2)
    }

    @Test func handshakesThroughJingle() throws {
        let peers = try BrowserPeers()
        defer { peers.close() }
        for scenario in ["datachannel", "simulcast", "audio-video"] {
            let offer = try #require(try peers.request(["scenario": scenario])["offer"] as? String)
            let remoteOffer = try Self.throughJingle(offer, writtenBy: .initiator, action: .sessionInitiate)
            let answer = try #require(try peers.request(["remoteOffer": remoteOffer])["answer"] as? String)
            let remoteAnswer = try Self.throughJingle(answer, writtenBy: .responder, action: .sessionAccept)
            let result = try #require(try peers.request(["remoteAnswer": remoteAnswer])["result"] as? [String: Any])
            print("JingleRealHandshakeTests \(scenario): \(result)")
            if scenario != "audio-video" { #expect(result["echo"] as? String == "echo:hello", "\(scenario): \(result)") }
            let connected: Set<String> = ["connected", "completed"]
            #expect(connected.contains(result["offererIce"] as? String ?? ""), "\(scenario): \(result)")
            #expect(connected.contains(result["answererIce"] as? String ?? ""), "\(scenario): \(result)")
            if scenario != "datachannel" {
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
