import Calls
import RTCStats

/// One plugin handle of a ``JanusSession`` (one PeerConnection on Janus' side).
public struct JanusHandle: Sendable {
    /// The session the handle belongs to.
    public let session: JanusSession
    /// Janus' id of the handle.
    public let id: UInt64
    /// What Janus said to this handle unprompted, in poll order; finishes at detach or when the
    /// session is lost.
    public let events: AsyncStream<JanusEvent>

    /// Sends a plugin request and waits for its answer (plugin errors throw with their code).
    public func message(_ body: JSONValue, jsep: SessionDescription? = nil, timeout: Duration = .seconds(20)) async throws(JanusError) -> JanusReply {
        try await session.message(handle: id, body: body, jsep: jsep, timeout: timeout)
    }

    /// Trickles a local candidate; `nil` says gathering is complete.
    public func trickle(_ candidate: IceCandidate?) async throws(JanusError) {
        try await session.trickle(handle: id, candidate: candidate)
    }

    /// Detaches the handle (Janus closes its PeerConnection).
    public func detach() async {
        await session.detach(handle: id)
    }
}
