import Observability
import RTCStats

/// How a new peer connection is set up.
public struct PeerConnectionConfiguration: Hashable, Sendable {
    /// STUN/TURN server URLs (`stun:HOST:PORT`, `turn:HOST:PORT?transport=tcp`); empty for none.
    public var iceServers: [String]
    /// TURN user name, when `iceServers` holds TURN servers.
    public var username: String?
    /// TURN password.
    public var credential: String?
    /// Which candidates ICE may use: all, or only TURN relays.
    public var iceTransportPolicy: IceTransportPolicy

    /// Which candidates ICE may use (W3C `RTCIceTransportPolicy`).
    public enum IceTransportPolicy: String, Hashable, Sendable, CaseIterable {
        /// Host, server-reflexive and relay candidates.
        case all
        /// Only relay candidates: every path goes through a TURN server.
        case relay
    }

    /// Creates a configuration.
    public init(iceServers: [String] = [], username: String? = nil, credential: String? = nil,
                iceTransportPolicy: IceTransportPolicy = .all) {
        self.iceServers = iceServers
        self.username = username
        self.credential = credential
        self.iceTransportPolicy = iceTransportPolicy
    }
}

/// A WebRTC implementation the call objects drive: Chromium over WebDriver on Linux, Apple's
/// `RTCPeerConnection` on a phone, a fake in tests.
///
/// Peer connections are named by opaque ids. Every call returns once the engine has done the
/// work; nothing here waits for the network. What peer connections do by themselves arrives on
/// ``events``, one ordered stream for all of them.
public protocol MediaEngine: Sendable {
    /// Every peer connection's events, in the order the engine saw them. One stream per engine;
    /// it finishes when the engine shuts down.
    var events: AsyncStream<MediaEngineEvent> { get }

    /// Creates a peer connection.
    func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID
    /// Closes a peer connection; closing an unknown or closed one does nothing.
    func closePeerConnection(_ id: PeerConnectionID) async throws
    /// Captures camera and/or microphone and adds send-only tracks (with the simulcast layers).
    func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws
    /// Creates an offer (with new ICE credentials when `iceRestart`); it takes effect with
    /// ``setLocalDescription(_:on:)``. Apart, so that a publisher's ICE restart offer reaches the
    /// router before the engine starts checking with its new candidates.
    func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription
    /// Sets an offer from ``createOffer(on:iceRestart:)`` as the local description.
    func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws
    /// Creates an answer to the remote offer and sets it as the local description.
    func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription
    /// Sets the remote description.
    func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws
    /// Adds a remote ICE candidate; `nil` marks the end of the remote candidates.
    func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws
    /// Opens a data channel (ordered, reliable) labelled `label`.
    func openDataChannel(label: String, on id: PeerConnectionID) async throws
    /// Sends a text message on the open data channel labelled `label`.
    func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws
    /// Enables or disables the local (sent) or remote (received) tracks of one kind.
    func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws
    /// Delivers every decoded frame of the connection's remote video (for a publisher's
    /// connection: its local preview) to `sink`, on an engine thread, until replaced or `nil`;
    /// the sink must return quickly. A frame the engine cannot make a valid ``VideoFrame`` of
    /// (truncated plane, zero stride, ...) is not delivered but reported as
    /// ``MediaEngineEvent/videoFrameRejected(_:source:reason:)``.
    /// - Throws: ``MediaEngineError`` `unsupported` when the engine cannot deliver frames,
    ///   `unknownPeerConnection`.
    func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws
    /// The peer connection's `getStats()` report.
    func stats(of id: PeerConnectionID) async throws -> StatsReport
    /// Closes every peer connection and releases the engine; ``events`` then finishes.
    func shutdown() async
}
