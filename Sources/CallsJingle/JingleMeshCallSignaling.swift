import Calls
import Foundation
import Jingle
import XMPP
import XMPPClient

/// A ``Signaling`` for a relayed call of several friends over XMPP and Jingle (a mesh): no
/// router, each device sends its media to each other device over a media connection of its
/// own. A `CallSession` over it publishes one peer connection per other participant.
///
/// - **The group (XEP-0353 with a member list).** The caller proposes the call (one call id)
///   to each friend's bare JID; its `propose` carries the members (bare JIDs, its own
///   included) in a `<group xmlns='urn:callscope:jingle-group:0'>` extension. A callee waits
///   for a `propose` from one of its ``friends``, answers `proceed` to the proposing device and
///   then proposes the same call (same id, same group) to every other member it counts as a
///   friend. Whoever receives a `propose` of the call it is in from a member answers `proceed`;
///   a `propose` or a `proceed` from a member's device makes that device the member's in the
///   call. Two members proposing to each other at once thus both proceed, harmlessly: each
///   learns the other's device. Proposals are sent again every second until the member's
///   device is known or ``answerTimeout`` ran out.
/// - **Joining.** ``join(display:)`` returns once one member's device is known (it is then an
///   attendee); each member found later is a ``SignalingEvent/participantJoined(_:display:)``.
///   The participant id of a member is its device's full JID.
/// - **Two Jingle sessions per pair, one per direction.** Towards each member our publication
///   is a session of its own (``openPublication(to:)``, ``offerPublication(_:on:)``): a
///   `session-initiate` with a `sid` of ours (`<call id>-<random>`), answered by that member's
///   `session-accept`. A member's `session-initiate` is its publication:
///   ``SignalingEvent/feedsPublished(_:)`` (feed id: its full JID); ``subscribe(to:)`` and
///   ``start(_:answer:)`` answer it with a `session-accept` carrying our gathered candidates
///   (at most ``gatheringWait``), as ``JingleCallSignaling`` does.
/// - **The end.** A member's `session-terminate` of our publication towards it is a
///   ``SignalingEvent/hangup(_:reason:)`` of that session's handle; of its own publication, a
///   ``SignalingEvent/feedUnpublished(_:)``; its `finish` (or `retract`, `reject`) a
///   ``SignalingEvent/participantLeft(_:)``. ``leave()`` terminates every session and sends
///   `finish` to every member's device.
/// - **Audio fallback.** ``configure(_:streams:)`` on a subscription sends a `content-modify`
///   of that session when a content's `send` changes (`senders='none'`: stop sending it to us;
///   `'initiator'`: send it again); a member's `content-modify` of our session towards it is
///   what ``subscriberWantsVideo(on:)`` reports, and the publication turns the video off on that
///   member's connection only.
/// - **Candidates and ICE restarts**, per session, with the wire shapes of the call of two
///   (``JingleCallSignaling``, the code shared in JingleIceRestarting.swift): a member's trickled
///   candidates become ``SignalingEvent/remoteCandidate(_:_:)`` of the session's handle (a
///   subscription's held until its answer is set); a restart of our publication towards one
///   member (``restartPublicationIce(offer:on:)``) is a `transport-info` with new credentials in
///   that session only, answered the same way; a member's such `transport-info` on its
///   publication is ``SignalingEvent/offer(_:_:)`` of our subscription; ``restartIce(_:)`` asks
///   with `<restart-ice/>`, a member's request is ``SignalingEvent/iceRestartRequested(_:)`` of
///   our session towards it. Each time the XMPP stream comes back, every session restarts
///   (``restartsAfterStreamReturns``).
/// - **Replacing a connection**, per session, with the wire shapes and code of the call of two
///   (JingleSessionReplacing.swift): ``replacePublication(_:on:)`` publishes a new peer
///   connection towards one member in a new session replacing ours; a member's replacement of
///   its publication moves our subscription to the new session; our subscription asks with
///   `<replace-session/>` (``replaceSubscription(_:)``), a member's request is
///   ``SignalingEvent/replacementRequested(_:)`` of our session towards it.
/// - **Not used.** ``republish(offer:display:participantID:)``, ``publish(offer:)`` and
///   ``restartPublisherIce(offer:)`` throw (a mesh publication is offered, restarted and
///   replaced per subscriber).
///
/// One call per client at a time: it takes the client's Jingle IQs and XEP-0353 messages.
public actor JingleMeshCallSignaling: Signaling {
    /// The members' events, in the order they arrived.
    public nonisolated let events: AsyncStream<SignalingEvent>
    let eventSink: AsyncStream<SignalingEvent>.Continuation
    let client: XMPPClient
    /// Caller: the friends invited. Callee: the friends whose proposal it takes, and the only
    /// members of a proposed group it connects to.
    public nonisolated let friends: Set<JID>
    let role: JingleCallRole
    /// How long a proposal, ``join(display:)`` and ``offerPublication(_:on:)`` wait for a member.
    public let answerTimeout: Duration
    /// How long the subscribing side waits for its candidates before it sends its `session-accept`.
    public let gatheringWait: Duration

    var callID: String?
    var own: JID?
    /// The call's members other than us (bare JIDs), once known.
    var members: Set<JID> = []
    var group: JingleCallGroup?
    /// Each member's device in the call, once it proposed or proceeded.
    var devices: [JID: JID] = [:]
    /// Whether ``join(display:)`` returned (later members are `participantJoined`).
    var joined = false
    var joinWaiters: [CheckedContinuation<JID?, Never>] = []
    var incomingTask: Task<Void, Never>?
    var proposeTasks: [JID: Task<Void, Never>] = [:]

    /// Our publication sessions, by sid.
    var publications: [String: MeshPublicationSession] = [:] { didSet { updateSessionDirectory() } }
    /// Each member's publication (by its device) and our subscription to it.
    var memberPublications: [JID: FriendPublication] = [:] { didSet { updateSessionDirectory() } }
    var offerWaiters: [CheckedContinuation<Void, Never>] = []
    /// Remote candidates received in a `transport-info` that no session of ours can apply
    /// (their content is not one of its contents, or too many held before our answer).
    public internal(set) var unusedRemoteCandidates = 0
    /// ICE restarts and the members' candidates held (JingleMeshCallSignaling+Restart.swift).
    var restarts = JingleIceRestarts()
    /// Sessions replaced by new ones (JingleMeshCallSignaling+Replace.swift).
    var replacements = JingleSessionReplacements()
    let sessionDirectory = JingleSessionDirectory()
    /// Members' Jingle IQs refused as malformed (`bad-request`) and XEP-0353 messages dropped
    /// as malformed (a bad group included).
    public internal(set) var malformedInputs = 0
    /// Jingle IQs from a friend's device that is not in the call (acknowledged, then dropped).
    public internal(set) var strayRequests = 0
    var ended = false

    static let participantHandle = RouterHandleID("jingle-mesh")

    /// A call over `client` (connected) with `friends` (bare JIDs of the roster).
    /// - Parameter callID: the XEP-0353 id the caller proposes (random when `nil`); ignored on a callee.
    public init(client: XMPPClient, friends: [JID], role: JingleCallRole, callID: String? = nil,
                answerTimeout: Duration = .seconds(60), gatheringWait: Duration = .seconds(2)) {
        (events, eventSink) = AsyncStream<SignalingEvent>.makeStream()
        self.client = client
        self.friends = Set(friends.map(\.bare))
        self.role = role
        self.callID = role == .caller ? (callID ?? JingleCallSignaling.randomToken()) : nil
        self.answerTimeout = answerTimeout
        self.gatheringWait = gatheringWait
    }

    // MARK: - Signaling

    /// Starts (caller) or waits for (callee) the call; returns once one member's device is known.
    /// - Throws: ``SignalingError`` when we are not connected or no member answered within ``answerTimeout``.
    public func join(display: String?) async throws -> RoomJoin {
        guard let own = await client.jid else { throw SignalingError(sessionLost: true, "join: the XMPP client is not connected") }
        self.own = own
        await listen()
        if role == .caller, let callID {
            members = friends.subtracting([own.bare])
            group = JingleCallGroup(members: members.union([own.bare]))
            startProposing(callID)
        }
        let first = await waitForFirstDevice()
        guard first != nil else {
            throw SignalingError("join: no member \(role == .caller ? "proceeded" : "proposed") within \(answerTimeout)")
        }
        joined = true
        watchStreamReturns()
        let attendees = devices.keys.sorted().compactMap { member in
            devices[member].map { RouterAttendee(id: FeedID($0.description), display: member.description) }
        }
        return RoomJoin(participantID: FeedID(own.description), participantHandle: Self.participantHandle, feeds: [], attendees: attendees)
    }

    /// Not used in a mesh: throws (``openPublication(to:)`` and ``offerPublication(_:on:)`` offer per subscriber).
    public func publish(offer: SessionDescription) async throws -> SessionDescription {
        throw SignalingError("publish: a mesh publication is offered to each subscriber in a session of its own")
    }

    /// Terminates every publication session of ours (`success`).
    public func unpublish() async throws {
        for sid in publications.keys.sorted() { await terminatePublication(sid: sid) }
    }

    /// Not used in a mesh: throws (``restartPublicationIce(offer:on:)`` restarts one subscriber's session).
    public func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription {
        throw SignalingError("restartPublisherIce: a mesh publication restarts ICE towards each subscriber in its own session")
    }

    /// Not used in a mesh: throws (``replacePublication(_:on:)`` replaces one subscriber's session).
    public func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
        throw SignalingError("republish: a mesh publication is replaced towards each subscriber in a session of its own")
    }

    /// The member's offer (waiting up to ``gatheringWait`` for it when its `session-initiate`
    /// is still on its way); one subscription per publication.
    public func subscribe(to feed: FeedID) async throws -> SubscriptionOffer {
        guard let device = device(of: feed) else { throw SignalingError(routerCode: 428, "subscribe: no such feed \(feed)") }
        if memberPublications[device] == nil {
            let wait = gatheringWait
            let timer = Task { [weak self] in
                try? await Task.sleep(for: wait)
                await self?.wakeOfferWaiters()
            }
            await withCheckedContinuation { offerWaiters.append($0) }
            timer.cancel()
        }
        guard var publication = memberPublications[device] else { throw SignalingError(routerCode: 428, "subscribe: \(feed) does not publish") }
        guard !publication.subscribed else { throw SignalingError("subscribe: already subscribed to \(feed) (one subscription per publication)") }
        publication.subscribed = true
        memberPublications[device] = publication
        let sdp = try publication.offer.sdp(writtenBy: .initiator)
        return SubscriptionOffer(handle: Self.subscriptionHandle(publication.sid), offer: SessionDescription(kind: .offer, sdp: sdp))
    }

    /// Keeps `answer`; the `session-accept` goes once our candidates are gathered (or after
    /// ``gatheringWait``). On an accepted subscription, `answer` answers the member's ICE
    /// restart: its credentials go as a `transport-info`.
    public func start(_ handle: RouterHandleID, answer: SessionDescription) async throws {
        guard let device = subscribedDevice(handle), let publication = memberPublications[device] else {
            throw SignalingError("start: no subscription \(handle)")
        }
        let sid = publication.sid
        if publication.accepted { return try await answerRestart(sid: sid, answer: answer) }
        memberPublications[device]?.answer = try JingleSession(sdp: answer.sdp, writtenBy: .responder)
        releaseHeldCandidates(sid: sid)
        let wait = gatheringWait
        Task { [weak self] in
            try? await Task.sleep(for: wait)
            await self?.sendAccept(to: device, sid: sid)
        }
    }

    /// Asks the member for an ICE restart of its publication (`session-info` with
    /// `<restart-ice/>`); its offer arrives as ``SignalingEvent/offer(_:_:)``.
    public func restartIce(_ handle: RouterHandleID) async throws {
        try await askForRestart(handle)
    }

    /// On a subscription: a `send` that changes what we asked of a content goes to its
    /// publisher as a `content-modify` of that session (`senders='none'`: stop sending it to
    /// us, the audio fallback; `senders='initiator'`: send it again); the publisher applies it
    /// to its connection towards us only. Layers are not chosen (nothing forwards them).
    public func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {
        guard let device = subscribedDevice(handle), let publication = memberPublications[device],
              let change = JingleAudioFallback.request(sid: publication.sid, offer: publication.offer, paused: publication.pausedContents, streams: streams) else { return }
        memberPublications[device]?.pausedContents = change.paused
        try await client.set(change.request.element, to: device)
    }

    /// ``configure(_:streams:)``, sent before it returns (the order of requests is kept); the
    /// returned task succeeds.
    public func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        try await configure(handle, streams: streams)
        return Task {}
    }

    /// Sends `candidate` as a `transport-info` of the handle's session; on a subscription whose
    /// `session-accept` has not gone yet, keeps it for the accept (`nil`: gathering complete,
    /// the accept goes now).
    public func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws {
        let sid: String, device: JID, creator: JingleRole
        if let publication = publications.values.first(where: { Self.publicationHandle($0.sid) == handle }) {
            (sid, device, creator) = (publication.sid, publication.device, .initiator)
        } else if let member = subscribedDevice(handle), let publication = memberPublications[member] {
            if !publication.accepted {
                if let candidate { memberPublications[member]?.gathered.append(candidate) } else { await sendAccept(to: member, sid: publication.sid) }
                return
            }
            (sid, device, creator) = (publication.sid, member, .responder)
        } else {
            return
        }
        guard let candidate else { return }
        let trickled = try JingleTrickleCandidate(sdpCandidate: candidate.candidate, sdpMid: candidate.sdpMid ?? "0")
        try await client.set(JingleRequest.transportInfo(sessionID: sid, creator: creator, candidates: [trickled]).element, to: device)
    }

    /// Terminates our subscription's session (`success`); idempotent.
    public func close(_ handle: RouterHandleID) async {
        guard let device = subscribedDevice(handle), let publication = memberPublications[device] else { return }
        memberPublications[device]?.subscribed = false
        try? await client.set(JingleRequest(action: .sessionTerminate, sessionID: publication.sid, reason: JingleReason(.success)).element, to: device)
    }

    /// Terminates every session, sends XEP-0353 `finish` to each member's device, and ends ``events``.
    public func leave() async {
        guard !ended else { return }
        ended = true
        endRestarts()
        replacements.resumeAll()
        for task in proposeTasks.values { task.cancel() }
        proposeTasks.removeAll()
        for sid in publications.keys.sorted() { await terminatePublication(sid: sid) }
        for (device, publication) in memberPublications.sorted(by: { $0.key < $1.key }) {
            try? await client.set(JingleRequest(action: .sessionTerminate, sessionID: publication.sid, reason: JingleReason(.success)).element, to: device)
        }
        if let callID {
            for device in devices.values.sorted() {
                try? await client.sendMessage(JingleMessage(.finish, sessionID: callID, reason: JingleReason(.success)).element, to: device)
            }
        }
        memberPublications.removeAll()
        wakeOfferWaiters()
        resolveJoin(nil)
        incomingTask?.cancel()
        await client.handleRequests(namespace: JingleNamespace.jingle) { _, _ in "service-unavailable" }
        await client.handleMessages(namespace: JingleNamespace.jingleMessage) { _, _ in }
        eventSink.finish()
    }

    /// Does nothing (Jingle has no place for it yet).
    public func describePublishedStream(_ description: String) async throws {}

    /// Whether the member's publication stands (its `session-initiate` came, no terminate since).
    public func isPublishing(_ feed: FeedID) async throws -> Bool? {
        guard let device = device(of: feed) else { return false }
        return memberPublications[device] != nil
    }

    // MARK: - Handles

    static func subscriptionHandle(_ sid: String) -> RouterHandleID { RouterHandleID("jingle-mesh-subscription-\(sid)") }
    static func publicationHandle(_ sid: String) -> RouterHandleID { RouterHandleID("jingle-mesh-publication-\(sid)") }

    /// The member device whose participant id is `feed`, when it is in the call.
    func device(of feed: FeedID) -> JID? {
        devices.values.first { $0.description == feed.rawValue }
    }

    /// The member whose publication our subscription `handle` answers.
    func subscribedDevice(_ handle: RouterHandleID) -> JID? {
        memberPublications.first { Self.subscriptionHandle($0.value.sid) == handle }?.key
    }
}
