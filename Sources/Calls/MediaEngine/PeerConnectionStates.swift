/// `RTCPeerConnection.iceConnectionState`.
public enum IceConnectionState: String, Sendable, Hashable {
    /// `new`
    case new
    /// `checking`
    case checking
    /// `connected`
    case connected
    /// `completed`
    case completed
    /// `disconnected`
    case disconnected
    /// `failed`
    case failed
    /// `closed`
    case closed
}

/// `RTCPeerConnection.connectionState`.
public enum PeerConnectionState: String, Sendable, Hashable {
    /// `new`
    case new
    /// `connecting`
    case connecting
    /// `connected`
    case connected
    /// `disconnected`
    case disconnected
    /// `failed`
    case failed
    /// `closed`
    case closed
}

/// `RTCPeerConnection.signalingState`.
public enum SignalingState: String, Sendable, Hashable {
    /// `stable`
    case stable
    /// `have-local-offer`
    case haveLocalOffer = "have-local-offer"
    /// `have-remote-offer`
    case haveRemoteOffer = "have-remote-offer"
    /// `have-local-pranswer`
    case haveLocalProvisionalAnswer = "have-local-pranswer"
    /// `have-remote-pranswer`
    case haveRemoteProvisionalAnswer = "have-remote-pranswer"
    /// `closed`
    case closed
}
