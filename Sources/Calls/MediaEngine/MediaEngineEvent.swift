import Observability

/// Something a peer connection did on its own, in the order the media engine saw it.
public enum MediaEngineEvent: Sendable, Hashable {
    /// A local ICE candidate was gathered; `nil` marks the end of gathering.
    case candidate(PeerConnectionID, IceCandidate?)
    /// The ICE connection state changed.
    case iceConnectionState(PeerConnectionID, IceConnectionState)
    /// The aggregate connection state changed.
    case connectionState(PeerConnectionID, PeerConnectionState)
    /// The signaling state changed.
    case signalingState(PeerConnectionID, SignalingState)
    /// A remote track arrived on the media section `mid`.
    case track(PeerConnectionID, kind: MediaKind, mid: String?)
    /// A data channel (opened by either side) is open.
    case dataChannelOpen(PeerConnectionID, label: String)
    /// A text message arrived on a data channel.
    case dataChannelMessage(PeerConnectionID, label: String, text: String)
    /// A decoded frame of the connection could not be made a valid frame (a truncated plane,
    /// a zero stride, ...) and was not delivered to the ``VideoFrameSink``; the reason says
    /// why. Counted as a drop by the subscriber or publisher, never fatal.
    case videoFrameRejected(PeerConnectionID, source: VideoTrackSource, reason: String)
    /// The engine could not read or understand something the peer connection reported; the
    /// payload says what. Counted, never fatal.
    case dropped(reason: String)

    /// The peer connection the event belongs to, when it belongs to one.
    public var peerConnection: PeerConnectionID? {
        switch self {
        case .candidate(let id, _), .iceConnectionState(let id, _), .connectionState(let id, _),
             .signalingState(let id, _), .track(let id, _, _), .dataChannelOpen(let id, _),
             .dataChannelMessage(let id, _, _), .videoFrameRejected(let id, _, _):
            return id
        case .dropped:
            return nil
        }
    }
}
