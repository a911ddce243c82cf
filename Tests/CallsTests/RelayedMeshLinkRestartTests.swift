import CallScopeTesting
@testable import Calls
import Foundation
import Testing

/// A relayed call of three (a mesh), publishing side: the other side's candidates and restart
/// requests reach the one link whose session they name (issue 24: reconnection "as in routed
/// sessions"; docs/peer-to-peer.md, "Reconnection in a mesh"). Over the fake mesh signalling and
/// the fake engine: Bob's link is pc-1, Carol's pc-2 (opened in the subscribers' order).
@Suite(.timeLimit(.minutes(1))) struct RelayedMeshLinkRestartTests {
    typealias Rig = RelayedMeshPublicationTests.Rig
    static let bob = RelayedMeshPublicationTests.bob, carol = RelayedMeshPublicationTests.carol
    static let toBob = RelayedMeshPublicationTests.toBob, toCarol = RelayedMeshPublicationTests.toCarol

    @Test func aSubscribersRestartRequestRestartsItsLinkOnly() async throws {
        let rig = Rig()
        try await rig.publish()
        rig.signaling.emit(.iceRestartRequested(FakeMeshSignaling.handle(Self.carol)))
        await eventually("carol's answer set") { rig.engine.calls.contains { $0 == "setRemote \(Self.toCarol) restart answer pub-\(Self.carol.rawValue)" } }
        #expect(rig.signaling.calls.filter { $0.hasPrefix("restart") } == ["restart pub-\(Self.carol.rawValue)"])
        let restartOffers = rig.engine.calls.filter { $0.hasSuffix("iceRestart") }
        #expect(restartOffers == ["createOffer \(Self.toCarol) iceRestart"], "\(restartOffers)")
        #expect(!rig.engine.calls.contains { $0.hasPrefix("setRemote \(Self.toBob) restart") })
        #expect(!rig.lifecycle.all.contains { if case .didFail = $0 { true } else { false } }, "\(rig.lifecycle.all)")
        #expect(rig.engine.openPeerConnections == [Self.toBob, Self.toCarol], "no link closed")
        await rig.session.disconnect()
    }

    @Test func aSubscribersCandidateReachesItsLinksPeerConnection() async throws {
        let rig = Rig()
        try await rig.publish()
        let candidate = IceCandidate(candidate: "candidate:1 1 udp 2122260223 192.0.2.7 40000 typ host", sdpMid: "0", sdpMLineIndex: nil)
        rig.signaling.emit(.remoteCandidate(FakeMeshSignaling.handle(Self.bob), candidate))
        rig.signaling.emit(.remoteCandidate(FakeMeshSignaling.handle(Self.carol), nil))
        await eventually("both added") { rig.engine.calls.filter { $0.hasPrefix("addCandidate") }.count == 2 }
        #expect(rig.engine.calls.filter { $0.hasPrefix("addCandidate") } == [
            "addCandidate \(Self.toBob) candidate:1 1 udp 2122260223 192.0.2.7 40000 typ host", "addCandidate \(Self.toCarol) end",
        ])
        await rig.session.disconnect()
    }
}
