import Calls
import Jingle
import XMPP

/// One publication session of ours towards one member: its device, our offer, its answer.
struct MeshPublicationSession: Sendable {
    let sid: String
    let device: JID
    var offer: JingleSession?
    var answer: Result<SessionDescription, any Error>?
    var answerWaiter: CheckedContinuation<Result<SessionDescription, any Error>, Never>?
    /// The contents the subscriber asked us to stop sending (its `content-modify` with
    /// `senders='none'`).
    var pausedContents: Set<String> = []

    /// Whether the subscriber still wants one of our video contents (no video offered: `true`).
    var wantsVideo: Bool { JingleAudioFallback.wantsVideo(offer: offer, paused: pausedContents) }
}

extension JingleMeshCallSignaling: MeshSignaling {
    /// A session of ours towards the member whose device is `subscriber`: its handle, and the
    /// device (`connectionId`) and `sid` (`subscriberId`) that name it in the publisher's stats.
    /// - Throws: ``SignalingError`` (code 428) when `subscriber` is not a member's device in the call.
    package func openPublication(to subscriber: FeedID) async throws -> MeshPublicationLink {
        guard !ended, let device = device(of: subscriber) else {
            throw SignalingError(routerCode: 428, "openPublication: \(subscriber) is not in the call")
        }
        let sid = "\(callID ?? "call")-\(JingleCallSignaling.randomToken())"
        publications[sid] = MeshPublicationSession(sid: sid, device: device)
        return MeshPublicationLink(handle: Self.publicationHandle(sid),
                                   subscriber: RelayedSubscriber(connectionId: device.description, subscriberId: sid))
    }

    /// Sends `offer` as the `session-initiate` of the session `handle`; returns the member's
    /// `session-accept` as an answer (within ``answerTimeout``).
    package func offerPublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription {
        guard let sid = publications.values.first(where: { Self.publicationHandle($0.sid) == handle })?.sid,
              let device = publications[sid]?.device else {
            throw SignalingError("offerPublication: no publication session \(handle)")
        }
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        publications[sid]?.offer = session
        let request = JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: own?.description, session: session)
        try await client.set(request.element, to: device)
        return try await publicationAnswer(sid: sid, from: device)
    }

    /// The member's `session-accept` of our session `sid`, within ``answerTimeout``.
    func publicationAnswer(sid: String, from device: JID) async throws -> SessionDescription {
        let timeout = answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.answerArrived(sid: sid, .failure(SignalingError("offerPublication: \(device) did not accept within \(timeout)")))
        }
        defer { timer.cancel() }
        let answer = await withCheckedContinuation { continuation in
            if let early = publications[sid]?.answer {
                continuation.resume(returning: early)
            } else if publications[sid] == nil {
                continuation.resume(returning: .failure(SignalingError("offerPublication: the session with \(device) ended")))
            } else {
                publications[sid]?.answerWaiter = continuation
            }
        }
        return try answer.get()
    }

    /// Restarts ICE on the session `handle` only: `offer`'s new credentials as a
    /// `transport-info` of that session; returns the answer made of the member's credentials,
    /// which come the same way (within 5 s).
    package func restartPublicationIce(offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription {
        try await restartPublication(on: handle, offer: offer, step: "restartPublicationIce")
    }

    /// Whether the member of session `handle` still wants our video (it sent no
    /// `content-modify` pausing it, or resumed it since).
    package func subscriberWantsVideo(on handle: RouterHandleID) async -> Bool {
        publications.values.first { Self.publicationHandle($0.sid) == handle }?.wantsVideo ?? true
    }

    /// Terminates the session `handle` (`success`); idempotent.
    package func closePublication(_ handle: RouterHandleID) async {
        guard let sid = publications.values.first(where: { Self.publicationHandle($0.sid) == handle })?.sid else { return }
        await terminatePublication(sid: sid)
    }

    /// Forgets publication session `sid` (its waiter fails) and sends its `session-terminate`.
    func terminatePublication(sid: String) async {
        guard let publication = publications.removeValue(forKey: sid) else { return }
        forgetRestarts(of: sid)
        publication.answerWaiter?.resume(returning: .failure(SignalingError("offerPublication: the session with \(publication.device) ended")))
        try? await client.set(JingleRequest(action: .sessionTerminate, sessionID: sid, reason: JingleReason(.success)).element, to: publication.device)
    }

    func answerArrived(sid: String, _ answer: Result<SessionDescription, any Error>) {
        guard publications[sid] != nil, publications[sid]?.answer == nil else { return }
        publications[sid]?.answer = answer
        publications[sid]?.answerWaiter?.resume(returning: answer)
        publications[sid]?.answerWaiter = nil
    }

    /// Sends our subscription's `session-accept` to `device` with the candidates gathered so far (once).
    func sendAccept(to device: JID, sid: String) async {
        guard let publication = memberPublications[device], publication.sid == sid, !publication.accepted,
              var answer = publication.answer else { return }
        memberPublications[device]?.accepted = true
        for candidate in publication.gathered {
            guard let trickled = try? JingleTrickleCandidate(sdpCandidate: candidate.candidate, sdpMid: candidate.sdpMid ?? "0"),
                  let index = answer.contents.firstIndex(where: { $0.name == trickled.contentName }) else { continue }
            answer.contents[index].transport?.candidates.append(trickled.candidate)
        }
        let request = JingleRequest(action: .sessionAccept, sessionID: sid, responder: own?.description, session: answer)
        try? await client.set(request.element, to: device)
    }

    func wakeOfferWaiters() {
        for waiter in offerWaiters { waiter.resume() }
        offerWaiters.removeAll()
    }
}
