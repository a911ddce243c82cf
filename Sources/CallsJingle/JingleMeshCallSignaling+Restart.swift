import Calls
import Jingle
import XMPP
import XMPPClient

// MARK: - ICE restarts and the members' candidates (JingleIceRestarting.swift)

extension JingleMeshCallSignaling: JingleIceRestarting {
    /// Restart signals that fit no session state (a `transport-info` with new credentials that
    /// nobody waits for, a request for a session that is not ours, credentials for contents the
    /// session has not or that are not ICE's): acknowledged, counted, not acted on.
    public var ignoredRestartSignals: Int { restarts.ignored }

    /// ICE restarts asked for (ours through the call layer, each member's by a request)
    /// because the XMPP stream came back.
    public var restartsAfterStreamReturns: Int { restarts.afterStreamReturns }

    /// Every publication session of ours that was offered, and every member's publication.
    func restartSessions() -> [JingleRestartSession] {
        let ours = publications.values.compactMap { publication -> JingleRestartSession? in
            publication.offer.map {
                JingleRestartSession(sid: publication.sid, device: publication.device, handle: Self.publicationHandle(publication.sid),
                                     direction: .publication, offer: $0)
            }
        }
        let theirs = memberPublications.map { device, publication in
            JingleRestartSession(sid: publication.sid, device: device, handle: Self.subscriptionHandle(publication.sid),
                                 direction: .subscription, offer: publication.offer,
                                 answered: publication.answer != nil, accepted: publication.accepted)
        }
        return ours + theirs
    }

    func restartSession(sid: String) -> JingleRestartSession? {
        restartSessions().first { $0.sid == sid }
    }

    func restartSession(handle: RouterHandleID) -> JingleRestartSession? {
        restartSessions().first { $0.handle == handle }
    }
}
