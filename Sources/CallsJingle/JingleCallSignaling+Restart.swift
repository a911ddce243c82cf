import Calls
import Jingle
import XMPP
import XMPPClient

/// What the ICE restarts and the friend's trickled candidates of a call's two Jingle sessions
/// need to remember: our publication's accepted transports and the restart waiting for its
/// answer; our subscription's candidates held until its answer is given, and the friend's
/// last restart offer.
struct JingleIceRestarts: Sendable {
    /// The friend's `session-accept` of our publication (its transports give the base of each
    /// restart answer).
    var publicationAccept: (sid: String, session: JingleSession)?
    /// Our publication's restart that waits for the friend's credentials.
    var pending: PendingRestart?
    /// Restarts of our publication made (each raises the answer's `o=` version).
    var publicationRestarts: UInt64 = 0
    /// The friend's candidates of our subscription, until ``JingleCallSignaling/start(_:answer:)``
    /// set the friend's offer in the engine.
    var heldSubscriptionCandidates: (sid: String, candidates: [IceCandidate])?
    /// The friend's last restart offer of its publication: its credentials (a repeat is
    /// ignored) and when it came.
    var lastOffer: (sid: String, credentials: [Credentials], at: ContinuousClock.Instant)?
    /// Restarts of the friend's publication received (each raises the offer's `o=` version).
    var subscriptionRestarts: UInt64 = 0
    /// Restart signals that fit no session state (counted, acknowledged, not acted on).
    var ignored = 0
    /// Watches the XMPP stream: each time it is back, both sessions restart.
    var streamWatch: Task<Void, Never>?
    /// Restarts made because the XMPP stream came back.
    var afterStreamReturns = 0

    /// Our restart offer, and whoever waits for its answer.
    struct PendingRestart: Sendable {
        let sid: String
        let offer: JingleSession
        var waiter: CheckedContinuation<Result<SessionDescription, any Error>, Never>?
        var result: Result<SessionDescription, any Error>?
    }

    /// One content's new ICE credentials (XEP-0176 transport `ufrag` and `pwd`).
    struct Credentials: Hashable, Sendable {
        var contentName: String
        var usernameFragment: String
        var password: String
    }
}

// MARK: - ICE restarts and the friend's candidates

extension JingleCallSignaling {
    /// How long our restart offer waits for the friend's credentials.
    static let restartAnswerTimeout: Duration = .seconds(5)
    /// A subscriber's restart request within this long of the publisher's last restart offer is
    /// not sent: that restart is the answer to the same silence.
    static let restartRequestQuietTime: Duration = .seconds(2)
    /// How long a restart signal waits for the XMPP stream to come back (a network change cuts
    /// it; XEP-0198 resumes it).
    static let streamReturnPatience: Duration = .seconds(5)

    /// Restart signals that fit no session state (a `transport-info` with new credentials that
    /// nobody waits for, a request for a session that is not ours, credentials for contents the
    /// session has not or that are not ICE's): acknowledged, counted, not acted on.
    public var ignoredRestartSignals: Int { restarts.ignored }

    /// The friend's `session-accept` of our publication: kept as the base of restart answers.
    func rememberAccept(_ session: JingleSession, sid: String) {
        restarts.publicationAccept = (sid, session)
    }

    /// Our publication's ICE restart: `offer`'s credentials as a `transport-info`; the
    /// friend's answering credentials make the answer.
    func restartOwnPublication(offer: SessionDescription) async throws -> SessionDescription {
        let device = try requireFriendDevice("restartPublisherIce")
        guard let sid = publication?.sid, let accept = restarts.publicationAccept, accept.sid == sid else {
            throw SignalingError("restartPublisherIce: our publication is not accepted yet")
        }
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        guard let credentials = JingleIceRestartShape.credentials(of: session) else {
            throw SignalingError("restartPublisherIce: the offer has no ICE credentials")
        }
        restarts.pending?.waiter?.resume(returning: .failure(SignalingError("restartPublisherIce: a newer restart replaced this one")))
        restarts.pending = JingleIceRestarts.PendingRestart(sid: sid, offer: session)
        let timeout = Self.restartAnswerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.restartAnswered(sid: sid, .failure(SignalingError("restartPublisherIce: \(device) did not answer within \(timeout)")))
        }
        defer { timer.cancel() }
        do {
            try await setWhenConnected(JingleIceRestartShape.transportInfo(sid: sid, credentials), to: device)
        } catch {
            restartAnswered(sid: sid, .failure(error))
        }
        let answer = await withCheckedContinuation { continuation in
            if let result = restarts.pending?.result {
                restarts.pending = nil
                continuation.resume(returning: result)
            } else {
                restarts.pending?.waiter = continuation
            }
        }
        return try answer.get()
    }

    private func restartAnswered(sid: String, _ result: Result<SessionDescription, any Error>) {
        guard var pending = restarts.pending, pending.sid == sid, pending.result == nil else { return }
        if let waiter = pending.waiter {
            restarts.pending = nil
            waiter.resume(returning: result)
        } else {
            pending.result = result
            restarts.pending = pending
        }
    }

    /// Our subscription's ICE restart: asks the friend (its publication's initiator) for one;
    /// its offer comes as ``SignalingEvent/offer(_:_:)``. Not sent when the friend's last
    /// restart offer came moments ago.
    func askForRestart(_ handle: RouterHandleID) async throws {
        let device = try requireFriendDevice("restartIce")
        guard let publication = friendPublication, handle == Self.subscriptionHandle(publication.sid), publication.accepted else {
            throw SignalingError("restartIce: no accepted subscription \(handle)")
        }
        if let last = restarts.lastOffer, last.sid == publication.sid, ContinuousClock.now - last.at < Self.restartRequestQuietTime { return }
        try await setWhenConnected(JingleIceRestartShape.request(sid: publication.sid), to: device)
    }

    /// Our answer to the friend's restart offer: its credentials as a `transport-info`.
    func answerRestart(sid: String, answer: SessionDescription) async throws {
        let device = try requireFriendDevice("start")
        let session = try JingleSession(sdp: answer.sdp, writtenBy: .responder)
        guard let credentials = JingleIceRestartShape.credentials(of: session) else {
            throw SignalingError("start: the answer to the ICE restart has no ICE credentials")
        }
        try await setWhenConnected(JingleIceRestartShape.transportInfo(sid: sid, credentials), to: device)
    }

    /// Our subscription's answer is set in the engine: the friend's candidates held so far go.
    func releaseHeldCandidates(sid: String) {
        guard let held = restarts.heldSubscriptionCandidates, held.sid == sid else { return }
        restarts.heldSubscriptionCandidates = nil
        for candidate in held.candidates { eventSink.yield(.remoteCandidate(Self.subscriptionHandle(sid), candidate)) }
    }

    /// A `transport-info` from the friend: new credentials (a restart offer of its publication,
    /// or the answer to ours), or trickled candidates (to the engine; counted in
    /// ``unusedRemoteCandidates`` when no session of ours has their content).
    func receiveTransportInfo(_ request: JingleRequest) {
        let sid = request.sessionID
        if let credentials = JingleIceRestartShape.credentials(of: request) {
            return receiveCredentials(credentials, sid: sid)
        }
        let ownSid = publication?.sid, friendSid = friendPublication?.sid
        let contents: JingleSession? = sid == ownSid ? publication?.offer : sid == friendSid ? friendPublication?.offer : nil
        for trickled in request.trickleCandidates {
            guard let contents, contents.content(named: trickled.contentName) != nil else {
                unusedRemoteCandidates += 1
                continue
            }
            let candidate = IceCandidate(candidate: trickled.sdpCandidate, sdpMid: trickled.contentName, sdpMLineIndex: nil)
            if sid == ownSid {
                eventSink.yield(.remoteCandidate(Self.publicationHandle, candidate))
            } else if friendPublication?.answer == nil {
                var held = restarts.heldSubscriptionCandidates?.sid == sid ? restarts.heldSubscriptionCandidates?.candidates ?? [] : []
                guard held.count < Self.heldCandidateLimit else {
                    unusedRemoteCandidates += 1
                    continue
                }
                held.append(candidate)
                restarts.heldSubscriptionCandidates = (sid, held)
            } else {
                eventSink.yield(.remoteCandidate(Self.subscriptionHandle(sid), candidate))
            }
        }
    }

    /// The most candidates held for a subscription not answered yet (a flood is counted, not kept).
    static let heldCandidateLimit = 256

    private func receiveCredentials(_ credentials: [JingleIceRestarts.Credentials], sid: String) {
        if let pending = restarts.pending, pending.sid == sid, pending.result == nil {
            guard let accept = restarts.publicationAccept?.session,
                  let session = JingleIceRestartShape.session(accept, replacing: credentials) else {
                restarts.ignored += 1
                return
            }
            restarts.publicationRestarts += 1
            let answer = Result<SessionDescription, any Error> {
                SessionDescription(kind: .answer, sdp: try session.sdp(answering: pending.offer, sessionVersion: 1 + restarts.publicationRestarts))
            }
            restartAnswered(sid: sid, answer)
            return
        }
        guard let friendPublication, friendPublication.sid == sid, friendPublication.accepted else {
            restarts.ignored += 1
            return
        }
        if let last = restarts.lastOffer, last.sid == sid, last.credentials == credentials { return }     // a repeat (resent after a resumption)
        guard let session = JingleIceRestartShape.session(friendPublication.offer, replacing: credentials) else {
            restarts.ignored += 1
            return
        }
        restarts.subscriptionRestarts += 1
        guard let sdp = try? session.sdp(writtenBy: .initiator, sessionVersion: 1 + restarts.subscriptionRestarts) else {
            restarts.ignored += 1
            return
        }
        restarts.lastOffer = (sid, credentials, .now)
        eventSink.yield(.offer(Self.subscriptionHandle(sid), SessionDescription(kind: .offer, sdp: sdp)))
    }

    /// The friend asks for an ICE restart of `sid`: our publication restarts (through the call
    /// layer, which makes the offer), unless our own restart of it waits for its answer.
    func receiveRestartRequest(sid: String) {
        guard let publication, publication.sid == sid, restarts.publicationAccept?.sid == sid else {
            restarts.ignored += 1
            return
        }
        if let pending = restarts.pending, pending.sid == sid, pending.result == nil { return }
        eventSink.yield(.iceRestartRequested(Self.publicationHandle))
    }

    /// The call ends: a restart waiting for its answer fails, the stream is no longer watched.
    func endRestarts() {
        restarts.streamWatch?.cancel()
        restarts.streamWatch = nil
        let waiter = restarts.pending?.waiter
        restarts.pending = nil
        waiter?.resume(returning: .failure(SignalingError(sessionLost: true, "restartPublisherIce: the call ended")))
    }

    // MARK: - The XMPP stream back

    /// From the join on: each time the XMPP stream is back (resumed or not), both sessions
    /// restart ICE. A stream cut is what a device sees first of a network change (its TCP
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

    /// Our publication restarts through the call layer (as the friend's request would make it);
    /// the friend is asked to restart its own.
    func streamReturned() async {
        guard !ended, let device = friendDevice else { return }
        if let publication, restarts.publicationAccept?.sid == publication.sid, restarts.pending?.sid != publication.sid {
            restarts.afterStreamReturns += 1
            eventSink.yield(.iceRestartRequested(Self.publicationHandle))
        }
        if let publication = friendPublication, publication.accepted {
            restarts.afterStreamReturns += 1
            try? await setWhenConnected(JingleIceRestartShape.request(sid: publication.sid), to: device)
        }
    }

    /// ICE restarts asked for (ours through the call layer, the friend's by a request) because
    /// the XMPP stream came back.
    public var restartsAfterStreamReturns: Int { restarts.afterStreamReturns }

    /// An IQ set that waits (up to ``streamReturnPatience``) for the stream to come back when
    /// it is down: a network change cuts it just when ICE needs restarting.
    func setWhenConnected(_ payload: XMPPElement, to device: JID) async throws {
        let deadline = ContinuousClock.now + Self.streamReturnPatience
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
