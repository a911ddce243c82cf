import Calls
import Jingle
import XMPP
import XMPPClient

// MARK: - ICE restarts and the friend's candidates (JingleIceRestarting.swift)

extension JingleCallSignaling: JingleIceRestarting {
    /// Restart signals that fit no session state (a `transport-info` with new credentials that
    /// nobody waits for, a request for a session that is not ours, credentials for contents the
    /// session has not or that are not ICE's): acknowledged, counted, not acted on.
    public var ignoredRestartSignals: Int { restarts.ignored }

    /// ICE restarts asked for (ours through the call layer, the friend's by a request) because
    /// the XMPP stream came back.
    public var restartsAfterStreamReturns: Int { restarts.afterStreamReturns }

    /// Our publication and our subscription to the friend's, as the restarts see them.
    func restartSessions() -> [JingleRestartSession] {
        guard let friendDevice else { return [] }
        var sessions: [JingleRestartSession] = []
        if let publication {
            sessions.append(JingleRestartSession(sid: publication.sid, device: friendDevice, handle: Self.publicationHandle,
                                                 direction: .publication, offer: publication.offer))
        }
        if let friendPublication {
            sessions.append(JingleRestartSession(sid: friendPublication.sid, device: friendDevice,
                                                 handle: Self.subscriptionHandle(friendPublication.sid), direction: .subscription,
                                                 offer: friendPublication.offer, answered: friendPublication.answer != nil,
                                                 accepted: friendPublication.accepted))
        }
        return sessions
    }

    func restartSession(sid: String) -> JingleRestartSession? {
        restartSessions().first { $0.sid == sid }
    }

    func restartSession(handle: RouterHandleID) -> JingleRestartSession? {
        restartSessions().first { $0.handle == handle }
    }

    /// Our publication's ICE restart.
    func restartOwnPublication(offer: SessionDescription) async throws -> SessionDescription {
        _ = try requireFriendDevice("restartPublisherIce")
        return try await restartPublication(on: Self.publicationHandle, offer: offer, step: "restartPublisherIce")
    }

    /// A `transport-info` from the friend's device.
    func receiveTransportInfo(_ request: JingleRequest) {
        guard let friendDevice else {
            unusedRemoteCandidates += request.trickleCandidates.count
            return
        }
        receiveTransportInfo(request, from: friendDevice)
    }

    /// A restart request from the friend's device.
    func receiveRestartRequest(sid: String) {
        guard let friendDevice else { return }
        receiveRestartRequest(sid: sid, from: friendDevice)
    }
}
