import Observability

/// Which router handle each peer connection's local candidates go to, holding them until the
/// connection's SDP has reached the router (a candidate before the subscriber's answer made
/// Janus treat the answer as a renegotiation and skip the data channel's SCTP setup).
struct TrickleRouter: Sendable {
    var participantHandle: RouterHandleID?
    private var targets: [PeerConnectionID: RouterHandleID] = [:]
    private var held: [PeerConnectionID: [IceCandidate?]] = [:]

    /// Start holding `pc`'s candidates.
    mutating func expect(_ pc: PeerConnectionID) {
        if held[pc] == nil, targets[pc] == nil { held[pc] = [] }
    }

    /// `pc`'s SDP reached `handle`: returns the held candidates to send now, in order.
    mutating func ready(_ pc: PeerConnectionID, handle: RouterHandleID) -> [IceCandidate?] {
        targets[pc] = handle
        return held.removeValue(forKey: pc) ?? []
    }

    /// Where `candidate` goes now; `nil` when it is held (or `pc` is not ours).
    mutating func route(_ candidate: IceCandidate?, from pc: PeerConnectionID) -> RouterHandleID? {
        if let handle = targets[pc] { return handle }
        held[pc]?.append(candidate)
        return nil
    }

    /// Whether `pc`'s SDP already reached the router once (a later offer is a renegotiation).
    func hasSeen(_ pc: PeerConnectionID) -> Bool { targets[pc] != nil }

    /// Stops routing `pc`.
    mutating func forget(_ pc: PeerConnectionID) {
        targets[pc] = nil
        held[pc] = nil
    }
}
