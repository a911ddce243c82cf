import Calls
import Jingle
import XMPP
import XMPPClient

/// A Jingle call signalling whose sessions restart ICE and take trickled candidates with the
/// friend-connection wire shapes (``JingleIceRestartShape``): the call of two
/// (``JingleCallSignaling``) and the mesh (``JingleMeshCallSignaling``) share it, each telling
/// which of its sessions a `sid` or a handle names.
protocol JingleIceRestarting: Actor {
    var client: XMPPClient { get }
    var eventSink: AsyncStream<SignalingEvent>.Continuation { get }
    var ended: Bool { get }
    var restarts: JingleIceRestarts { get set }
    /// Candidates received that no session can apply.
    var unusedRemoteCandidates: Int { get set }
    /// The session `sid`, when it is one of the call's.
    func restartSession(sid: String) -> JingleRestartSession?
    /// The session on `handle`, when it is one of the call's.
    func restartSession(handle: RouterHandleID) -> JingleRestartSession?
    /// Every session of the call.
    func restartSessions() -> [JingleRestartSession]
}

// MARK: - Timing

/// How long the restart signals wait (the same for every Jingle call).
enum JingleRestartTiming {
    /// How long our restart offer waits for the subscriber's credentials.
    static let answerTimeout: Duration = .seconds(5)
    /// A subscriber's restart request within this long of the publisher's last restart offer
    /// is not sent: that restart is the answer to the same silence.
    static let requestQuietTime: Duration = .seconds(2)
    /// How long a restart signal waits for the XMPP stream to come back (a network change cuts
    /// it; XEP-0198 resumes it).
    static let streamReturnPatience: Duration = .seconds(5)
    /// The most candidates held for a subscription not answered yet (a flood is counted, not kept).
    static let heldCandidateLimit = 256
}

// MARK: - Our publications' restarts

extension JingleIceRestarting {
    /// The subscriber's `session-accept` of our publication `sid`: kept as the base of restart answers.
    func rememberAccept(_ session: JingleSession, sid: String) {
        restarts.publicationAccepts[sid] = session
    }

    /// Our publication's ICE restart on `handle`: `offer`'s credentials as a `transport-info`;
    /// the subscriber's answering credentials make the answer. `step` names the call in errors.
    func restartPublication(on handle: RouterHandleID, offer: SessionDescription, step: String) async throws -> SessionDescription {
        guard !ended, let target = restartSession(handle: handle), target.direction == .publication,
              restarts.publicationAccepts[target.sid] != nil else {
            throw SignalingError(sessionLost: ended, "\(step): no accepted publication \(handle)")
        }
        let (sid, device) = (target.sid, target.device)
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        guard let credentials = JingleIceRestartShape.credentials(of: session) else {
            throw SignalingError("\(step): the offer has no ICE credentials")
        }
        restarts.pending[sid]?.waiter?.resume(returning: .failure(SignalingError("\(step): a newer restart replaced this one")))
        restarts.pending[sid] = JingleIceRestarts.PendingRestart(offer: session)
        let timeout = JingleRestartTiming.answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.restartAnswered(sid: sid, .failure(SignalingError("\(step): \(device) did not answer within \(timeout)")))
        }
        defer { timer.cancel() }
        do {
            try await setWhenConnected(JingleIceRestartShape.transportInfo(sid: sid, credentials), to: device)
        } catch {
            restartAnswered(sid: sid, .failure(error))
        }
        let answer = await withCheckedContinuation { continuation in
            if let result = restarts.pending[sid]?.result {
                restarts.pending[sid] = nil
                continuation.resume(returning: result)
            } else if restarts.pending[sid] == nil {
                continuation.resume(returning: .failure(SignalingError(sessionLost: ended, "\(step): the session ended")))
            } else {
                restarts.pending[sid]?.waiter = continuation
            }
        }
        return try answer.get()
    }

    func restartAnswered(sid: String, _ result: Result<SessionDescription, any Error>) {
        guard var pending = restarts.pending[sid], pending.result == nil else { return }
        if let waiter = pending.waiter {
            restarts.pending[sid] = nil
            waiter.resume(returning: result)
        } else {
            pending.result = result
            restarts.pending[sid] = pending
        }
    }

    /// The member asks for an ICE restart of `sid`: our publication restarts (through the call
    /// layer, which makes the offer), unless our own restart of it waits for its answer.
    func receiveRestartRequest(sid: String, from device: JID) {
        guard let target = restartSession(sid: sid), target.direction == .publication, target.device == device,
              restarts.publicationAccepts[sid] != nil else {
            restarts.ignored += 1
            return
        }
        if let pending = restarts.pending[sid], pending.result == nil { return }
        eventSink.yield(.iceRestartRequested(target.handle))
    }

    /// Session `sid` is gone: a restart waiting for its answer fails, what it held is dropped.
    func forgetRestarts(of sid: String) {
        restarts.forget(sid)?.resume(returning: .failure(SignalingError("ICE restart: the session ended")))
    }

    /// The call ends: every restart waiting for its answer fails, the stream is no longer watched.
    func endRestarts() {
        restarts.streamWatch?.cancel()
        restarts.streamWatch = nil
        let waiters = restarts.pending.values.compactMap(\.waiter)
        restarts.pending.removeAll()
        for waiter in waiters { waiter.resume(returning: .failure(SignalingError(sessionLost: true, "ICE restart: the call ended"))) }
    }
}

// MARK: - Our subscriptions' restarts

extension JingleIceRestarting {
    /// Our subscription's ICE restart: asks its publisher (the session's initiator) for one;
    /// its offer comes as ``SignalingEvent/offer(_:_:)``. Not sent when the publisher's last
    /// restart offer came moments ago.
    func askForRestart(_ handle: RouterHandleID) async throws {
        guard !ended, let target = restartSession(handle: handle), target.direction == .subscription, target.accepted else {
            throw SignalingError(sessionLost: ended, "restartIce: no accepted subscription \(handle)")
        }
        if let last = restarts.lastOffers[target.sid], ContinuousClock.now - last.at < JingleRestartTiming.requestQuietTime { return }
        try await setWhenConnected(JingleIceRestartShape.request(sid: target.sid), to: target.device)
    }

    /// Our answer to the publisher's restart offer of `sid`: its credentials as a `transport-info`.
    func answerRestart(sid: String, answer: SessionDescription) async throws {
        guard let target = restartSession(sid: sid), target.direction == .subscription else {
            throw SignalingError("start: no subscription \(sid)")
        }
        let session = try JingleSession(sdp: answer.sdp, writtenBy: .responder)
        guard let credentials = JingleIceRestartShape.credentials(of: session) else {
            throw SignalingError("start: the answer to the ICE restart has no ICE credentials")
        }
        try await setWhenConnected(JingleIceRestartShape.transportInfo(sid: sid, credentials), to: target.device)
    }

    /// Our subscription's answer is set in the engine: the publisher's candidates held so far go.
    func releaseHeldCandidates(sid: String) {
        guard let held = restarts.heldSubscriptionCandidates.removeValue(forKey: sid),
              let target = restartSession(sid: sid) else { return }
        for candidate in held { eventSink.yield(.remoteCandidate(target.handle, candidate)) }
    }
}

// MARK: - What a transport-info brings

extension JingleIceRestarting {
    /// A `transport-info` from `device`: new credentials (a restart offer of its publication,
    /// or the answer to ours), or trickled candidates (to the engine; counted in
    /// ``unusedRemoteCandidates`` when no session of ours with `device` has their content).
    func receiveTransportInfo(_ request: JingleRequest, from device: JID) {
        let sid = request.sessionID
        if let credentials = JingleIceRestartShape.credentials(of: request) {
            return receiveCredentials(credentials, sid: sid, from: device)
        }
        let target = restartSession(sid: sid).flatMap { $0.device == device ? $0 : nil }
        for trickled in request.trickleCandidates {
            guard let target, target.offer.content(named: trickled.contentName) != nil else {
                unusedRemoteCandidates += 1
                continue
            }
            let candidate = IceCandidate(candidate: trickled.sdpCandidate, sdpMid: trickled.contentName, sdpMLineIndex: nil)
            if target.direction == .subscription, !target.answered {
                var held = restarts.heldSubscriptionCandidates[sid] ?? []
                guard held.count < JingleRestartTiming.heldCandidateLimit else {
                    unusedRemoteCandidates += 1
                    continue
                }
                held.append(candidate)
                restarts.heldSubscriptionCandidates[sid] = held
            } else {
                eventSink.yield(.remoteCandidate(target.handle, candidate))
            }
        }
    }

    private func receiveCredentials(_ credentials: [JingleIceRestarts.Credentials], sid: String, from device: JID) {
        guard let target = restartSession(sid: sid), target.device == device else {
            restarts.ignored += 1
            return
        }
        switch target.direction {
        case .publication:
            guard let pending = restarts.pending[sid], pending.result == nil,
                  let accept = restarts.publicationAccepts[sid],
                  let session = JingleIceRestartShape.session(accept, replacing: credentials) else {
                restarts.ignored += 1
                return
            }
            let version = 1 + (restarts.publicationRestarts[sid] ?? 0)
            restarts.publicationRestarts[sid] = version
            restartAnswered(sid: sid, Result<SessionDescription, any Error> {
                SessionDescription(kind: .answer, sdp: try session.sdp(answering: pending.offer, sessionVersion: 1 + version))
            })
        case .subscription:
            guard target.accepted else {
                restarts.ignored += 1
                return
            }
            if restarts.lastOffers[sid]?.credentials == credentials { return }     // a repeat (resent after a resumption)
            guard let session = JingleIceRestartShape.session(target.offer, replacing: credentials) else {
                restarts.ignored += 1
                return
            }
            let version = 1 + (restarts.subscriptionRestarts[sid] ?? 0)
            restarts.subscriptionRestarts[sid] = version
            guard let sdp = try? session.sdp(writtenBy: .initiator, sessionVersion: 1 + version) else {
                restarts.ignored += 1
                return
            }
            restarts.lastOffers[sid] = (credentials, .now)
            eventSink.yield(.offer(target.handle, SessionDescription(kind: .offer, sdp: sdp)))
        }
    }
}

// MARK: - The XMPP stream back

extension JingleIceRestarting {
    /// From the join on: each time the XMPP stream is back (resumed or not), every session
    /// restarts ICE. A stream cut is what a device sees first of a network change (its TCP
    /// connection dies with the address): restarting at once does not wait the 3 s of silence
    /// the connections' machines need to see the path lost (measured in
    /// `RealRelayedReconnectTests`: media again 6 s after the change without it).
    func watchStreamReturns() {
        guard restarts.streamWatch == nil else { return }
        let stream = client.events()
        restarts.streamWatch = Task { [weak self] in
            for await event in stream {
                guard case .connected = event else { continue }
                await self?.streamReturned()
            }
        }
    }

    /// Our accepted publications restart through the call layer (as a request would make
    /// them); each member is asked to restart its own.
    func streamReturned() async {
        guard !ended else { return }
        for target in restartSessions().sorted(by: { $0.sid < $1.sid }) {
            switch target.direction {
            case .publication:
                guard restarts.publicationAccepts[target.sid] != nil, restarts.pending[target.sid] == nil else { continue }
                restarts.afterStreamReturns += 1
                eventSink.yield(.iceRestartRequested(target.handle))
            case .subscription:
                guard target.accepted else { continue }
                restarts.afterStreamReturns += 1
                try? await setWhenConnected(JingleIceRestartShape.request(sid: target.sid), to: target.device)
            }
        }
    }

    /// An IQ set that waits (up to ``JingleRestartTiming/streamReturnPatience``) for the stream
    /// to come back when it is down: a network change cuts it just when ICE needs restarting.
    func setWhenConnected(_ payload: XMPPElement, to device: JID) async throws {
        let deadline = ContinuousClock.now + JingleRestartTiming.streamReturnPatience
        while true {
            let failure: XMPPError
            do {
                try await client.set(payload, to: device)
                return
            } catch {
                failure = error
            }
            guard failure.code == .notConnected, ContinuousClock.now < deadline, !ended else { throw failure }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
