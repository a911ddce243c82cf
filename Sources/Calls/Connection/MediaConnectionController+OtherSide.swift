// What the other side of a media connection sends besides its descriptions: its trickled
// candidates and its requests for an ICE restart (a relayed call's friend).
import Observability

// MARK: - The other side's trickled candidates

extension MediaConnectionController {
    /// Hands the other side's candidate to the engine's peer connection. One the engine refuses
    /// (no remote description yet, or not yet the one of the candidate's ICE generation, as
    /// during an ICE restart) is held and tried again once the negotiation ends; refused then
    /// too, it is dropped and counted. A bad candidate never fails the connection.
    func addRemoteCandidate(_ candidate: IceCandidate?, in session: isolated CallSession) async {
        guard !isClosed, let pc = peerConnection else {
            droppedRemoteCandidates += 1
            return
        }
        do {
            try await session.engine.addRemoteCandidate(candidate, on: pc)
        } catch {
            guard !isClosed, peerConnection == pc else {
                droppedRemoteCandidates += 1
                return
            }
            heldRemoteCandidates.append(candidate)
        }
    }

    /// A new peer connection: the candidates held for the one before are dropped.
    func dropHeldRemoteCandidates() {
        droppedRemoteCandidates += heldRemoteCandidates.count
        heldRemoteCandidates.removeAll()
    }

    /// After a negotiation: the held candidates, once more each.
    func addHeldRemoteCandidates(in session: isolated CallSession) async {
        guard !heldRemoteCandidates.isEmpty, let pc = peerConnection else { return }
        let held = heldRemoteCandidates
        heldRemoteCandidates.removeAll()
        for candidate in held {
            do {
                guard !isClosed, peerConnection == pc else { throw CancellationError() }
                try await session.engine.addRemoteCandidate(candidate, on: pc)
            } catch {
                droppedRemoteCandidates += 1
            }
        }
    }
}

// MARK: - The other side's restart request

extension MediaConnectionController {
    /// The other side asks for an ICE restart: fed to the machine in a task of its own (on the
    /// session's executor, as the timers), not in the session's event loop. A publisher's
    /// restart waits for the other side's answer, and when both sides restart at once each
    /// answer needs the other side's event loop (to answer the restart offer it received):
    /// with the loops waiting, both restarts would wait for their timeout (measured: 5 s).
    func requestRestart(on handle: RouterHandleID, in session: isolated CallSession) {
        guard !isClosed else { return }
        timers.append(Task { [weak self] in
            await self?.feed(.restartRequested(handle), in: session)
        })
    }
}

// MARK: - The other side's replacement request

extension MediaConnectionController {
    /// The other side asks for a new peer connection (its ICE restarts did not bring media
    /// back): the machine replaces ours as after a router hangup. Fed beside the session's
    /// event loop, as a restart request: the replacement waits for the other side's answer.
    func requestReplacement(on handle: RouterHandleID, in session: isolated CallSession) {
        guard !isClosed else { return }
        timers.append(Task { [weak self] in
            await self?.feed(.routerHangup(handle), in: session)
        })
    }
}

extension CallSession {
    /// The media connection (the publication's, a relayed publication's link's, or an open
    /// subscription's) on `handle`.
    func connectionController(on handle: RouterHandleID) -> MediaConnectionController? {
        if let publication, publication.connection.handle == handle { return publication.connection }
        if let link = relayedPublication?.link(on: handle) { return link.connection }
        return subscription(on: handle)?.connection
    }

    /// The other side's candidates held and dropped by the media connection on `handle`.
    func remoteCandidateCounts(on handle: RouterHandleID) -> (held: Int, dropped: Int)? {
        connectionController(on: handle).map { ($0.heldRemoteCandidates.count, $0.droppedRemoteCandidates) }
    }
}
