import Calls
import FriendConnections
import XMPP

// MARK: - ICE restart of a friend connection after a network change

extension FriendManager {
    /// How long an ICE restart waits for its answer before another may start.
    static let restartAnswerTimeout: Duration = .seconds(5)

    /// How long ICE may stay `disconnected` before the initiator restarts it. ICE moves to
    /// another working pair by itself when there is one (all UDP dropped: to the TCP relay,
    /// 3.1 s after the drop, with `disconnected` in between); a restart at once would throw that
    /// pair away and make the paths go empty and come back (measured: Bob's paths flapped and
    /// his discoverability reached `tcp` only 11.7 s after the drop). A change that leaves no
    /// working pair is restarted this much later, or at once when either side's network or
    /// stream changed (those restart without waiting). The side whose selected pair receives
    /// nothing usually restarts sooner (``SilentPairRestart``, after 1.5 s); this grace covers the
    /// side that still receives while its own checks go unanswered.
    static let disconnectionGrace: Duration = .seconds(2)

    /// ICE went `disconnected`: restart it after ``disconnectionGrace`` unless it connected again
    /// meanwhile (as the responder, by asking the initiator to). Either side may be the only
    /// one to see it: with all UDP into Bob dropped, Alice still receives his packets and her
    /// ICE stays connected for about 11 s, while Bob's goes `disconnected` after 2.7 s; and
    /// libwebrtc has nothing to move to by itself once the connection is older than 10 s (a
    /// pair it pruned before checking it, such as the TCP relay behind the UDP relay, is gone
    /// by then), so only a restart brings the TCP relay (measured: 14.0 s when only the
    /// initiator restarted).
    func restartIfStillDisconnected(_ friend: JID, sid: String) {
        guard links[friend]?.sid == sid, links[friend]?.disconnectionRestart == nil else { return }
        let grace = Self.disconnectionGrace
        links[friend]?.disconnectionRestart = Task { [weak self, clock] in
            try? await clock.sleep(for: grace)
            guard !Task.isCancelled else { return }
            await self?.disconnectionGraceEnded(friend, sid: sid)
        }
    }

    private func disconnectionGraceEnded(_ friend: JID, sid: String) async {
        guard let link = links[friend], link.sid == sid, link.disconnectionRestart != nil else { return }
        links[friend]?.disconnectionRestart = nil
        switch link.role {
        case .initiator: await restartIce(friend, sid: sid)
        case .responder: restartIce(friend)
        }
    }

    /// Restarts ICE on every friend connection (our own network changed).
    func restartIceOnEveryConnection() {
        for friend in links.keys.sorted() { restartIce(friend) }
    }

    /// Restarts ICE on the connection to `friend`, in a task (the manager stays free meanwhile):
    /// as the initiator by itself, as the responder by asking the initiator to.
    func restartIce(_ friend: JID) {
        guard let link = links[friend] else { return }
        switch link.role {
        case .initiator:
            Task { await self.restartIce(friend, sid: link.sid) }
        case .responder:
            guard link.remoteDescriptionSet, let signalling else { return }
            Task { try? await signalling.send(.iceRestartRequest(sid: link.sid), to: link.friend) }
        }
    }

    /// The initiator's side: an offer with new ICE credentials on the same peer connection (the
    /// data channel and DTLS stay), its credentials sent as a `transport-info`; the candidates
    /// gathered meanwhile wait until the friend acknowledged it. Only the initiator restarts, so
    /// two restarts never cross; the responder's connection sees the same silence and the
    /// initiator's restart reaches it. A restart that fails falls back to a new connection.
    func restartIce(_ friend: JID, sid: String) async {
        guard started, let link = links[friend], link.sid == sid, link.role == .initiator, let pc = link.peerConnection,
              link.remoteDescriptionSet, !link.restartInFlight || now - link.restartStarted > Self.restartAnswerTimeout,
              let signalling else { return }
        links[friend]?.disconnectionRestart?.cancel()
        links[friend]?.disconnectionRestart = nil
        links[friend]?.restartInFlight = true
        links[friend]?.restartStarted = now
        links[friend]?.descriptionSent = false
        statistics.iceRestarts += 1
        do {
            let offer = try await engine.createOffer(on: pc, iceRestart: true)
            guard links[friend]?.peerConnection == pc else { return }
            try await engine.setLocalDescription(offer, on: pc)
            let credentials = IceRestartDescription.credentials(in: offer.sdp)
            guard !credentials.isEmpty else { return failed(friend, sid: sid, "the ICE restart offer has no ICE credentials") }
            try await signalling.send(.iceRestart(sid: sid, credentials), to: link.friend)
            descriptionSent(friend, sid: sid)
        } catch {
            failed(friend, sid: sid, "ICE restart: \(error)")
        }
    }

    /// New ICE credentials from `sender`: the initiator's restart offer (answered with ours) or
    /// the responder's answer to our restart.
    func receiveIceRestart(_ credentials: [IceRestartDescription.Credentials], sid: String, from sender: JID) async {
        let friend = sender.bare
        guard let link = links[friend], link.sid == sid, let pc = link.peerConnection, link.remoteDescriptionSet,
              let previous = link.remoteSDP, let signalling,
              let sdp = IceRestartDescription.sdp(replacingCredentialsIn: previous, with: credentials) else {
            statistics.signalsRefused += 1
            return
        }
        switch link.role {
        case .responder:
            links[friend]?.descriptionSent = false
            do {
                try await engine.setRemoteDescription(SessionDescription(kind: .offer, sdp: sdp), on: pc)
                guard links[friend]?.peerConnection == pc else { return }
                links[friend]?.remoteSDP = sdp
                let answer = try await engine.createAnswer(on: pc)
                let ours = IceRestartDescription.credentials(in: answer.sdp)
                guard !ours.isEmpty else { return failed(friend, sid: sid, "the ICE restart answer has no ICE credentials") }
                statistics.iceRestarts += 1
                try await signalling.send(.iceRestart(sid: sid, ours), to: sender)
                descriptionSent(friend, sid: sid)
            } catch {
                failed(friend, sid: sid, "ICE restart answer: \(error)")
            }
        case .initiator:
            guard link.restartInFlight else {
                statistics.signalsRefused += 1
                return
            }
            do {
                try await engine.setRemoteDescription(SessionDescription(kind: .answer, sdp: sdp), on: pc)
                guard links[friend]?.peerConnection == pc else { return }
                links[friend]?.remoteSDP = sdp
                links[friend]?.restartInFlight = false
            } catch {
                failed(friend, sid: sid, "ICE restart: \(error)")
            }
        }
    }
}
