import Calls
import Foundation
import Jingle
import XMPP
import XMPPClient

/// A ``Signaling`` for a relayed call between two friends over XMPP and Jingle: no router, the
/// media flows between the two devices.
///
/// - **Call setup (XEP-0353).** ``join(display:)`` on the caller sends a `propose` (audio and
///   video) to the friend's bare JID, again every second, until one of the friend's devices
///   answers `proceed` (or `accept`); on the callee it waits for the friend's `propose` and
///   answers `proceed` to the proposing device. It returns once the other device is known; the
///   friend is then listed as an attendee (`participantDidConnect`).
/// - **Two Jingle sessions, one per direction.** Each publication is its own Jingle session,
///   initiated by its publisher: ``publish(offer:)`` sends the offer as a `session-initiate`
///   with a session id (`sid`) of ours (`<call id>-<random>`) and returns the friend's
///   `session-accept` as the answer (so it returns when the friend subscribes, within
///   ``answerTimeout``). A `session-initiate` from the friend is the friend's publication: it
///   becomes ``SignalingEvent/feedsPublished(_:)`` (feed id: the friend's full JID), and
///   ``subscribe(to:)`` returns its offer; ``start(_:answer:)`` answers with a `session-accept`.
///   Which session a `session-accept`, `transport-info` or `session-terminate` concerns is told
///   by its `sid`: ours is our publication, the friend's is our subscription.
/// - **Candidates.** Ours are trickled as `transport-info`; the friend's become
///   ``SignalingEvent/remoteCandidate(_:_:)`` of the session's handle (a subscription's are held
///   until its answer is given), so the subscribing side sends its `session-accept` at once.
///   Candidates of a content no session of ours has are counted (``unusedRemoteCandidates``).
/// - **ICE restarts** (the wire shapes of friend connections): ``restartPublisherIce(offer:)``
///   sends the offer's new ICE credentials as a `transport-info` (every content with `ufrag` and
///   `pwd`, no candidate) and returns the answer made of the friend's credentials, which come
///   the same way; the friend's such `transport-info` on its publication becomes
///   ``SignalingEvent/offer(_:_:)`` of our subscription, whose answer (``start(_:answer:)``)
///   goes back as one. ``restartIce(_:)`` asks the friend with a `session-info` holding
///   `<restart-ice xmlns='urn:callscope:jingle:friend:0'/>`; the friend's request becomes
///   ``SignalingEvent/iceRestartRequested(_:)`` of our publication. Restart signals that fit no
///   state are counted (``ignoredRestartSignals``). Each time the XMPP stream comes back (a
///   network change cuts it first), both sessions restart: ours by that event, the friend's by
///   a request (``restartsAfterStreamReturns``).
/// - **The end.** ``unpublish()`` and ``close(_:)`` terminate their session (`success`);
///   ``leave()`` terminates both and sends XEP-0353 `finish`. The friend's `session-terminate`
///   of its publication becomes ``SignalingEvent/feedUnpublished(_:)``; its `finish` becomes
///   ``SignalingEvent/participantLeft(_:)``.
/// - **Audio fallback.** ``configure(_:streams:)`` on our subscription sends a `content-modify`
///   of the friend's session when a content's `send` changes (`senders='none'`: stop sending it
///   to us; `'initiator'`: send it again); the friend's `content-modify` of our publication's
///   session turns our video off on that connection, and on again (the publication reads it at
///   each stats sample). Layers (`substream`, `temporal`) are accepted and ignored: no router
///   forwards them.
/// - **Replacing a connection** (JingleCallSignaling+Replace.swift, shared with the mesh):
///   ``republish(offer:display:participantID:)`` publishes a new peer connection in a new
///   session that replaces our publication's; the friend's replacement of its publication
///   moves our subscription to the new session (a ``SignalingEvent/hangup(_:reason:)`` of the
///   old handle, whose replacement takes the new one);
///   our subscription asks for one with `<replace-session/>`, and the friend's request becomes
///   ``SignalingEvent/replacementRequested(_:)`` of our publication. A replacement of a session
///   that is not the sender's is refused and counted (``refusedReplacements``).
///
/// One call per client at a time: the signalling takes the client's Jingle IQs and XEP-0353
/// messages (a ``Friends`` `FriendManager` on the same client would lose its Jingle IQs).
public actor JingleCallSignaling: Signaling {
    /// The friend's events, in the order they arrived.
    public nonisolated let events: AsyncStream<SignalingEvent>
    let eventSink: AsyncStream<SignalingEvent>.Continuation
    let client: XMPPClient
    let friend: JID
    let role: JingleCallRole
    /// How long ``publish(offer:)`` waits for the friend's `session-accept`.
    public let answerTimeout: Duration
    /// How long ``subscribe(to:)`` waits for the friend's `session-initiate` still on its way.
    public let gatheringWait: Duration

    var callID: String?
    var own: JID?
    /// The friend's device in this call, once it proposed or proceeded.
    var friendDevice: JID?
    var deviceWaiters: [CheckedContinuation<JID?, Never>] = []
    var incomingTask: Task<Void, Never>?
    var proposeTask: Task<Void, Never>?

    /// Our publication: its session id, our offer, and whoever waits for the answer.
    var publication: OwnPublication? { didSet { updateSessionDirectory() } }
    /// The friend's publication we know of (its offer), and our subscription to it.
    var friendPublication: FriendPublication? { didSet { updateSessionDirectory() } }
    var offerWaiters: [CheckedContinuation<Void, Never>] = []
    /// Remote candidates received in a `transport-info` that no session of ours can apply (their
    /// content is not one of its contents, or too many held before our answer).
    public internal(set) var unusedRemoteCandidates = 0
    /// The friend's Jingle IQs refused as malformed (`bad-request`) and XEP-0353 messages
    /// dropped as malformed.
    public internal(set) var malformedInputs = 0
    var ended = false
    /// ICE restarts and the friend's candidates held (JingleCallSignaling+Restart.swift).
    var restarts = JingleIceRestarts()
    /// Sessions replaced by new ones (JingleCallSignaling+Replace.swift).
    var replacements = JingleSessionReplacements()
    let sessionDirectory = JingleSessionDirectory()

    static let publicationHandle = RouterHandleID("jingle-publication")

    /// A call with `friend` (a bare JID of the roster) over `client`, which must be connected.
    /// - Parameter callID: the XEP-0353 id the caller proposes (random when `nil`); ignored on the callee.
    public init(client: XMPPClient, friend: JID, role: JingleCallRole, callID: String? = nil,
                answerTimeout: Duration = .seconds(60), gatheringWait: Duration = .seconds(2)) {
        (events, eventSink) = AsyncStream<SignalingEvent>.makeStream()
        self.client = client
        self.friend = friend.bare
        self.role = role
        self.callID = role == .caller ? (callID ?? Self.randomToken()) : nil
        self.answerTimeout = answerTimeout
        self.gatheringWait = gatheringWait
    }

    static func randomToken() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    // MARK: - Signaling

    /// Starts the call (XEP-0353) and returns once the friend's device is known.
    /// - Throws: ``SignalingError`` when we are not connected or the friend did not answer
    ///   within ``answerTimeout``.
    public func join(display: String?) async throws -> RoomJoin {
        guard let own = await client.jid else { throw SignalingError(sessionLost: true, "join: the XMPP client is not connected") }
        self.own = own
        await listen()
        if role == .caller, let callID {
            let propose = JingleMessage(.propose, sessionID: callID, proposedApplications: [.rtp(media: "audio"), .rtp(media: "video")])
            let client = client, friend = friend
            proposeTask = Task {
                // Again every second until a device proceeds: a proposal sent before the
                // friend listened is not lost.
                while !Task.isCancelled {
                    try? await client.sendMessage(propose.element, to: friend)
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
        let device = await waitForFriendDevice()
        proposeTask?.cancel()
        guard let device else {
            throw SignalingError("join: \(friend) did not \(role == .caller ? "proceed" : "propose") within \(answerTimeout)")
        }
        watchStreamReturns()
        return RoomJoin(participantID: FeedID(own.description), participantHandle: Self.publicationHandle, feeds: [],
                        attendees: [RouterAttendee(id: FeedID(device.description), display: friend.description)])
    }

    /// Sends `offer` as a `session-initiate` of a new session of ours; returns the friend's
    /// `session-accept` as an answer.
    public func publish(offer: SessionDescription) async throws -> SessionDescription {
        let device = try requireFriendDevice("publish")
        let session = try JingleSession(sdp: offer.sdp, writtenBy: .initiator)
        let sid = "\(callID ?? "call")-\(Self.randomToken())"
        publication = OwnPublication(sid: sid, offer: session)
        let request = JingleRequest(action: .sessionInitiate, sessionID: sid, initiator: own?.description, session: session)
        try await client.set(request.element, to: device)
        return try await publicationAnswer(sid: sid, from: device, step: "publish")
    }

    /// The friend's `session-accept` of our publication `sid`, within ``answerTimeout``.
    func publicationAnswer(sid: String, from device: JID, step: String) async throws -> SessionDescription {
        let timeout = answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.answerArrived(sid: sid, .failure(SignalingError("\(step): \(device) did not accept within \(timeout)")))
        }
        defer { timer.cancel() }
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<SessionDescription, any Error>, Never>) in
            if publication?.sid != sid {
                continuation.resume(returning: .failure(SignalingError(sessionLost: ended, "\(step): the session with \(device) ended")))
            } else if let early = publication?.answer {
                continuation.resume(returning: early)
            } else {
                publication?.answerWaiter = continuation
            }
        }
        return try answer.get()
    }

    /// Terminates our publication's session (`success`).
    public func unpublish() async throws {
        guard let sid = publication?.sid, let device = friendDevice else { return }
        publication = nil
        try await client.set(JingleRequest(action: .sessionTerminate, sessionID: sid, reason: JingleReason(.success)).element, to: device)
    }

    /// Sends `offer`'s new ICE credentials as a `transport-info` of our publication's session;
    /// returns the answer made of the friend's new credentials (within 5 s).
    public func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription {
        try await restartOwnPublication(offer: offer)
    }

    /// Publishes `offer` (a new peer connection's) in a new session that replaces our
    /// publication's: a `session-initiate` with a fresh sid holding
    /// `<replaces xmlns='urn:callscope:jingle:friend:0' sid='OLD'/>`, then the old session's
    /// `session-terminate` (`alternative-session`); returns the friend's `session-accept` of the
    /// new one (within ``answerTimeout``). The friend keeps our stream (no
    /// `feedUnpublished`): its subscription moves to the new session. Our participant id and
    /// handle stay.
    public func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
        try await replaceOwnPublication(offer: offer)
    }

    /// The friend's offer (waiting up to ``gatheringWait`` for it when its `session-initiate`
    /// is still on its way); one subscription per publication.
    public func subscribe(to feed: FeedID) async throws -> SubscriptionOffer {
        guard feed.rawValue == friendDevice?.description else { throw SignalingError(routerCode: 428, "subscribe: no such feed \(feed)") }
        if friendPublication == nil {
            let wait = gatheringWait
            let timer = Task { [weak self] in
                try? await Task.sleep(for: wait)
                await self?.wakeOfferWaiters()
            }
            await withCheckedContinuation { offerWaiters.append($0) }
            timer.cancel()
        }
        guard var publication = friendPublication else { throw SignalingError(routerCode: 428, "subscribe: \(feed) does not publish") }
        guard !publication.subscribed else { throw SignalingError("subscribe: already subscribed to \(feed) (one subscription per publication)") }
        publication.subscribed = true
        friendPublication = publication
        let sdp = try publication.offer.sdp(writtenBy: .initiator)
        return SubscriptionOffer(handle: Self.subscriptionHandle(publication.sid), offer: SessionDescription(kind: .offer, sdp: sdp))
    }

    /// Sends `answer` as the `session-accept` of our subscription at once (our candidates
    /// trickle after it); an answer to the friend's ICE restart offer goes as a `transport-info`
    /// with its new credentials.
    public func start(_ handle: RouterHandleID, answer: SessionDescription) async throws {
        guard let publication = friendPublication, handle == Self.subscriptionHandle(publication.sid) else {
            throw SignalingError("start: no subscription \(handle)")
        }
        if publication.accepted { return try await answerRestart(sid: publication.sid, answer: answer) }
        friendPublication?.answer = try JingleSession(sdp: answer.sdp, writtenBy: .responder)
        releaseHeldCandidates(sid: publication.sid)
        await sendAccept(sid: publication.sid)
    }

    /// Asks the friend for an ICE restart of its publication (`session-info` with
    /// `<restart-ice/>`); its offer arrives as ``SignalingEvent/offer(_:_:)``.
    public func restartIce(_ handle: RouterHandleID) async throws {
        try await askForRestart(handle)
    }

    /// On our subscription: a `send` that changes what we asked of a content goes to the friend
    /// as a `content-modify` of its publication's session (`senders='none'`: stop sending it to
    /// us, the audio fallback; `senders='initiator'`: send it again), as in a mesh. Layers
    /// (`substream`, `temporal`) are accepted and ignored: nothing between friends forwards
    /// them. Another handle, or nothing changed: nothing is sent.
    public func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {
        guard let publication = friendPublication, handle == Self.subscriptionHandle(publication.sid), let device = friendDevice,
              let change = JingleAudioFallback.request(sid: publication.sid, offer: publication.offer, paused: publication.pausedContents, streams: streams)
        else { return }
        friendPublication?.pausedContents = change.paused
        try await client.set(change.request.element, to: device)
    }

    /// ``configure(_:streams:)``, sent before it returns (the order of requests is kept); the
    /// returned task succeeds.
    public func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        try await configure(handle, streams: streams)
        return Task {}
    }

    /// Sends `candidate` as a `transport-info` of the handle's session; on our subscription,
    /// before its `session-accept` went, keeps it for the accept (`nil`: gathering complete,
    /// the accept goes now).
    public func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws {
        let sid: String
        if handle == Self.publicationHandle {
            guard let own = publication?.sid else { return }
            sid = own
        } else {
            guard let publication = friendPublication, handle == Self.subscriptionHandle(publication.sid) else { return }
            sid = publication.sid
            if !publication.accepted {
                if let candidate { friendPublication?.gathered.append(candidate) } else { await sendAccept(sid: sid) }
                return
            }
        }
        guard let candidate, let device = friendDevice else { return }
        let trickled = try JingleTrickleCandidate(sdpCandidate: candidate.candidate, sdpMid: candidate.sdpMid ?? "0")
        let creator: JingleRole = handle == Self.publicationHandle ? .initiator : .responder
        try await client.set(JingleRequest.transportInfo(sessionID: sid, creator: creator, candidates: [trickled]).element, to: device)
    }

    /// Terminates our subscription's session (`success`); idempotent.
    public func close(_ handle: RouterHandleID) async {
        guard let publication = friendPublication, handle == Self.subscriptionHandle(publication.sid), publication.subscribed else { return }
        friendPublication?.subscribed = false
        if let device = friendDevice {
            try? await client.set(JingleRequest(action: .sessionTerminate, sessionID: publication.sid, reason: JingleReason(.success)).element, to: device)
        }
    }

    /// Terminates both sessions, sends XEP-0353 `finish`, and ends ``events``.
    public func leave() async {
        guard !ended else { return }
        ended = true
        proposeTask?.cancel()
        if let device = friendDevice {
            for sid in [publication?.sid, friendPublication?.sid].compactMap({ $0 }) {
                try? await client.set(JingleRequest(action: .sessionTerminate, sessionID: sid, reason: JingleReason(.success)).element, to: device)
            }
            if let callID {
                try? await client.sendMessage(JingleMessage(.finish, sessionID: callID, reason: JingleReason(.success)).element, to: device)
            }
        }
        publication?.answerWaiter?.resume(returning: .failure(SignalingError(sessionLost: true, "publish: the call ended")))
        endRestarts()
        replacements.resumeAll()
        publication = nil
        friendPublication = nil
        wakeOfferWaiters()
        resolveDevice(nil)
        incomingTask?.cancel()
        await client.handleRequests(namespace: JingleNamespace.jingle) { _, _ in "service-unavailable" }
        await client.handleMessages(namespace: JingleNamespace.jingleMessage) { _, _ in }
        eventSink.finish()
    }

    /// Stored for the next publication; not sent (Jingle has no place for it yet).
    public func describePublishedStream(_ description: String) async throws {}

    /// Whether the friend's publication stands (its `session-initiate` came, no terminate since).
    public func isPublishing(_ feed: FeedID) async throws -> Bool? {
        feed.rawValue == friendDevice?.description ? friendPublication != nil : false
    }

    static func subscriptionHandle(_ sid: String) -> RouterHandleID { RouterHandleID("jingle-subscription-\(sid)") }

    func requireFriendDevice(_ step: String) throws -> JID {
        guard let friendDevice, !ended else { throw SignalingError(sessionLost: ended, "\(step): not in a call with \(friend)") }
        return friendDevice
    }
}
