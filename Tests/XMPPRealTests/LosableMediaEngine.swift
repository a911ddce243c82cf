import Calls
import CallScopeCore
import Observability
import RTCStats

/// A media engine that passes everything to another and can lose a publishing peer connection
/// under the SDK: ``losePublication()`` closes the last peer connection that was given local
/// media in the engine itself (Chromium: the page's `RTCPeerConnection.close()`, its capture
/// stopped, its entry gone), without the SDK asking. From then on the engine answers every call
/// on it with its "unknown peer connection" error, as an engine that lost the connection does:
/// no ICE restart can bring it back (no offer can be made on it), a new peer connection can.
final class LosableMediaEngine: MediaEngine, Sendable {
    private let engine: any MediaEngine
    private let publishing = Locked<[PeerConnectionID]>([])
    var events: AsyncStream<MediaEngineEvent> { engine.events }

    init(_ engine: any MediaEngine) { self.engine = engine }

    /// The peer connections given local media, first first.
    var publishingPeerConnections: [PeerConnectionID] { publishing.withLock { $0 } }

    /// Closes the last publishing peer connection in the engine; returns it.
    func losePublication() async throws -> PeerConnectionID? {
        guard let pc = publishing.withLock({ $0.last }) else { return nil }
        try await engine.closePeerConnection(pc)
        return pc
    }

    func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws {
        try await engine.addLocalMedia(settings, to: id)
        publishing.withLock { $0.append(id) }
    }

    func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID { try await engine.makePeerConnection(configuration) }
    func closePeerConnection(_ id: PeerConnectionID) async throws { try await engine.closePeerConnection(id) }
    func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription { try await engine.createOffer(on: id, iceRestart: iceRestart) }
    func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws { try await engine.setLocalDescription(description, on: id) }
    func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription { try await engine.createAnswer(on: id) }
    func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws { try await engine.setRemoteDescription(description, on: id) }
    func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws { try await engine.addRemoteCandidate(candidate, on: id) }
    func openDataChannel(label: String, on id: PeerConnectionID) async throws { try await engine.openDataChannel(label: label, on: id) }
    func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws { try await engine.sendData(text, label: label, on: id) }
    func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws { try await engine.setTracksEnabled(kind, enabled, on: id) }
    func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws { try await engine.setVideoFrameSink(sink, on: id) }
    func stats(of id: PeerConnectionID) async throws -> StatsReport { try await engine.stats(of: id) }
    func shutdown() async { await engine.shutdown() }
}
