import CallScopeCore
import CallScopeTesting
import Calls
import Connectivity
import FriendConnections
import Foundation
@testable import Friends
import Observability
import RTCStats
import Testing
@testable import XMPP
@testable import XMPPClient
import XMPPTesting

/// The friend manager against a scripted XMPP server and a fake engine (answers from Chromium's
/// data-channel fixtures): the responder's side of a friend connection, from Bob's Jingle
/// session-initiate to paths from the connection's stats, an ICE restart asked for when they fall
/// silent, and Bob going offline.
@Suite struct FriendManagerScriptedTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JingleTests/Fixtures")

    /// The server: PLAIN login, a roster with bob (mutual), XEP-0215 with one STUN and one TURN/TCP.
    static func server() -> ScriptedXMPPServer {
        ScriptedXMPPServer(roster: ["bob@example.org"]) { element, server in
            let id = element.attributes["id"] ?? ""
            if element.name == "iq", element.child("services", namespace: XMPPNamespace.externalServices) != nil {
                server.deliver("<iq xmlns='jabber:client' type='result' id='\(id)' from='example.org'><services xmlns='urn:xmpp:extdisco:2'>"
                               + "<service type='stun' host='192.0.2.9' port='3478' transport='udp'/>"
                               + "<service type='turn' host='192.0.2.9' port='3478' transport='tcp' username='1700000000' password='secret'/></services></iq>")
            } else if element.name == "iq", element.attributes["type"] == "set", element.attributes["to"] == "bob@example.org/laptop" {
                server.deliver("<iq xmlns='jabber:client' type='result' id='\(id)' from='bob@example.org/laptop'/>")   // bob acknowledges
            }
        }
    }

    /// Discoverability that always finds UDP.
    struct UDPProber: DiscoverabilityProbing {
        var tcpRelayConfigured: Bool { true }
        func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
            DiscoverabilityProbeResult(probe: probe, succeeded: probe == .udpBinding, elapsed: .milliseconds(1), detail: "scripted")
        }
    }

    /// The fake engine, answering with Chromium's data-channel answer.
    struct AnsweringEngine: MediaEngine {
        let fake = FakeMediaEngine()
        let answer: String
        var events: AsyncStream<MediaEngineEvent> { fake.events }
        func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID { try await fake.makePeerConnection(configuration) }
        func closePeerConnection(_ id: PeerConnectionID) async throws { try await fake.closePeerConnection(id) }
        func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws { try await fake.addLocalMedia(settings, to: id) }
        func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription { try await fake.createOffer(on: id, iceRestart: iceRestart) }
        func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws { try await fake.setLocalDescription(description, on: id) }
        func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
            _ = try await fake.createAnswer(on: id)
            return SessionDescription(kind: .answer, sdp: answer)
        }
        func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws { try await fake.setRemoteDescription(description, on: id) }
        func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws { try await fake.addRemoteCandidate(candidate, on: id) }
        func openDataChannel(label: String, on id: PeerConnectionID) async throws { try await fake.openDataChannel(label: label, on: id) }
        func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws { try await fake.sendData(text, label: label, on: id) }
        func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws { try await fake.setTracksEnabled(kind, enabled, on: id) }
        func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws { try await fake.setVideoFrameSink(sink, on: id) }
        func stats(of id: PeerConnectionID) async throws -> StatsReport { try await fake.stats(of: id) }
        func shutdown() async { await fake.shutdown() }
    }

    /// A report whose selected pair is a host pair over UDP that received its last packet
    /// `lastPacketAgo` ms before the report, with the extra candidate-pair members `checks`.
    static func selectedHostPair(lastPacketAgo: Double, checks: String = "") throws -> StatsReport {
        let now = Date().timeIntervalSince1970 * 1000
        return try StatsReport(json: Array(#"""
        [{"id":"T1","type":"transport","timestamp":\#(now),"selectedCandidatePairId":"CP1"},
         {"id":"CP1","type":"candidate-pair","timestamp":\#(now),"localCandidateId":"L1","remoteCandidateId":"R1","state":"succeeded"\#(checks),"lastPacketReceivedTimestamp":\#(now - lastPacketAgo)},
         {"id":"L1","type":"local-candidate","timestamp":0,"candidateType":"host","protocol":"udp"},
         {"id":"R1","type":"remote-candidate","timestamp":0,"candidateType":"host","protocol":"udp"}]
        """#.utf8))
    }

    @Test func responderAnswersTricklesAndReportsPaths() async throws {
        let offer = try String(contentsOf: Self.fixtures.appendingPathComponent("chromium-datachannel-offer.sdp"), encoding: .utf8)
        let answer = try String(contentsOf: Self.fixtures.appendingPathComponent("chromium-datachannel-answer.sdp"), encoding: .utf8)
        let server = Self.server()
        let client = server.client()
        try await client.connect()
        let engine = AnsweringEngine(answer: answer)
        let manager = FriendManager(client: client, engine: engine,
                                    configuration: FriendManagerConfiguration(statsInterval: .milliseconds(50)) { _ in UDPProber() })
        let log = Locked<[FriendManagerEvent]>([])
        let events = manager.events()
        let reader = Task { for await event in events { log.withLock { $0.append(event) } } }
        defer { reader.cancel() }
        try await manager.start()
        #expect(await eventually { log.withLock { $0.contains { if case .discoverabilityChanged(.udp, _) = $0 { true } else { false } } } })

        // Bob comes online; "bob@example.org/laptop" sorts before "me@example.org/r": he offers, we wait.
        server.deliver("<presence xmlns='jabber:client' from='bob@example.org/laptop'/>")
        #expect(await eventually { await manager.connectedFriends == [JID("bob@example.org")!] })
        #expect(!engine.fake.calls.contains { $0.hasPrefix("make") }, "the responder makes no connection before the offer")

        // His session-initiate (the offer mapped by the Jingle module), acknowledged, answered with a session-accept.
        let initiate = try FriendSignalCodecFixture.initiate(offer: offer)
        server.deliver("<iq xmlns='jabber:client' type='set' id='j1' from='bob@example.org/laptop' to='me@example.org/r'>\(initiate)</iq>")
        #expect(await eventually { server.sent.contains { $0.contains("action=\"session-accept\"") } })
        #expect(server.sent.contains { $0.contains("id=\"j1\"") && $0.contains("type=\"result\"") })
        let calls = engine.fake.calls
        let remote = try #require(calls.firstIndex { $0.hasPrefix("setRemote") }), created = try #require(calls.firstIndex { $0.hasPrefix("createAnswer") })
        #expect(remote < created, "\(calls)")
        #expect(calls[remote].contains("a=ice-ufrag:qdij") && calls[remote].contains("a=sctp-port:5000"))

        // A local candidate: trickled in a transport-info to bob.
        let pc = try #require(engine.fake.openPeerConnections.first)
        engine.fake.emit(.candidate(pc, IceCandidate(candidate: "candidate:1 1 udp 2122260223 192.0.2.2 50000 typ host generation 0 ufrag q3Tw", sdpMid: "0", sdpMLineIndex: 0)))
        #expect(await eventually { server.sent.contains { $0.contains("action=\"transport-info\"") && $0.contains("192.0.2.2") } })

        // The stats: a selected host pair that just received a packet → udpDirect.
        engine.fake.setReport(try Self.selectedHostPair(lastPacketAgo: 100), for: pc)
        #expect(await eventually { await manager.paths(of: JID("bob@example.org")!) == .udpDirect })
        #expect(!server.sent.contains { $0.contains("restart-ice") })

        // Bob's packets stop (the pair's last packet 1 s before each report, three intervals are
        // 150 ms) and a check goes unanswered: we ask him for an ICE restart, once for the whole
        // silence.
        engine.fake.setReport(try Self.selectedHostPair(lastPacketAgo: 1_000, checks: ",\"requestsSent\":3,\"responsesReceived\":2"), for: pc)
        #expect(await eventually { server.sent.contains { $0.contains("restart-ice") && $0.contains("to=\"bob@example.org/laptop\"") } })
        try await Task.sleep(for: .milliseconds(400))
        #expect(server.sent.filter { $0.contains("restart-ice") }.count == 1)
        #expect(await manager.statistics.silentPairRestarts == 1)

        // Bob goes offline: paths empty at once, the connection closed.
        server.deliver("<presence xmlns='jabber:client' type='unavailable' from='bob@example.org/laptop'/>")
        #expect(await eventually { engine.fake.openPeerConnections.isEmpty })
        #expect(await manager.paths(of: JID("bob@example.org")!) == [])
        let paths = log.withLock { $0.compactMap { if case .pathsChanged(_, let paths) = $0 { paths } else { nil } } }
        #expect(paths == [.udpDirect, []])
        await manager.stop()
        await client.disconnect()
    }
}

/// The session-initiate Bob sends, built with the Jingle module from Chromium's offer.
enum FriendSignalCodecFixture {
    static func initiate(offer: String) throws -> String {
        try JingleFriendSignalCodec().element(for: .offer(sid: "sid-1", SessionDescription(kind: .offer, sdp: offer)),
                                              from: JID("bob@example.org/laptop"), to: JID("me@example.org/r")!).xmlString()
    }
}
