import Calls
import Jingle
import XMPP
import XMPPClient

/// What the client hands a mesh call: a Jingle IQ, or a XEP-0353 message with the group its
/// `propose` carries, with its sender.
enum JingleMeshInput: Sendable {
    case iq(JingleCallIQ)
    case message(JingleMessage, group: JingleCallGroup?, from: JID)
    /// A friend sent a XEP-0353 message that does not read (dropped).
    case malformedMessage
}

extension JingleMeshCallSignaling {
    /// Takes the client's Jingle IQs (from ``friends`` only; anyone else is refused with
    /// `service-unavailable`, a malformed one with `bad-request`) and XEP-0353 messages.
    func listen() async {
        guard incomingTask == nil else { return }
        let (stream, sink) = AsyncStream<JingleMeshInput>.makeStream()
        let friends = friends, directory = sessionDirectory
        await client.handleRequests(namespace: JingleNamespace.jingle) { iq, from in
            let (input, error) = JingleCallIQ.sort(iq, from: from, aMember: friends.contains(from.bare), directory: directory)
            if let input { sink.yield(.iq(input)) }
            return error
        }
        await client.handleMessages(namespace: JingleNamespace.jingleMessage) { payload, from in
            guard friends.contains(from.bare) else { return }
            do {
                let message = try JingleMessage(element: payload)
                sink.yield(.message(message, group: try JingleCallGroup(proposal: payload), from: from))
            } catch {
                sink.yield(.malformedMessage)
            }
        }
        incomingTask = Task { [weak self] in
            for await input in stream { await self?.receive(input) }
        }
    }

    func receive(_ input: JingleMeshInput) async {
        switch input {
        case .message(let message, let group, let from): await receive(message, group: group, from: from)
        case .iq(.request(let request, let from)): receive(request, from: from)
        case .iq(.malformed), .malformedMessage: malformedInputs += 1
        case .iq(.replacement(let request, let old, let from)) where devices[from.bare] == from: receiveReplacement(request, of: old, from: from)
        case .iq(.replacementRequest(let sid, let from)) where devices[from.bare] == from: receiveReplacementRequest(sid: sid, from: from)
        case .iq(.replacement), .iq(.replacementRequest), .iq(.refusedReplacement): replacements.refused += 1
        case .iq(.iceRestartRequest(let sid, let from)):
            guard devices[from.bare] == from else {
                strayRequests += 1
                return
            }
            receiveRestartRequest(sid: sid, from: from)
        }
    }

    // MARK: - XEP-0353: the group

    private func receive(_ message: JingleMessage, group proposed: JingleCallGroup?, from device: JID) async {
        guard !ended, let own else { return }
        switch message.kind {
        case .propose where callID == nil && role == .callee:
            // The invitation: the proposer and the members it lists that are our friends.
            callID = message.sessionID
            let listed = Set(proposed?.members ?? []).union([device.bare]).subtracting([own.bare])
            members = listed.intersection(friends)
            group = JingleCallGroup(members: members.union([own.bare]))
            try? await client.sendMessage(JingleMessage(.proceed, sessionID: message.sessionID).element, to: device)
            resolve(device)
            startProposing(message.sessionID)
        case .propose where message.sessionID == callID && members.contains(device.bare):
            try? await client.sendMessage(JingleMessage(.proceed, sessionID: message.sessionID).element, to: device)
            resolve(device)
        case .proceed where message.sessionID == callID, .accept where message.sessionID == callID:
            resolve(device)
        case .finish where message.sessionID == callID, .retract where message.sessionID == callID, .reject where message.sessionID == callID:
            memberLeft(device)
        default:
            break
        }
    }

    /// Proposes the call to every member whose device is not known yet, again every second
    /// until it is (or ``answerTimeout`` ran out).
    func startProposing(_ callID: String) {
        guard let group else { return }
        let propose = group.adding(to: JingleMessage(.propose, sessionID: callID, proposedApplications: [.rtp(media: "audio"), .rtp(media: "video")]).element)
        let client = client, timeout = answerTimeout
        for member in members.sorted() where devices[member] == nil && proposeTasks[member] == nil {
            proposeTasks[member] = Task { [weak self] in
                // A proposal sent before the member listened is not lost.
                let deadline = ContinuousClock.now + timeout
                while !Task.isCancelled, ContinuousClock.now < deadline {
                    try? await client.sendMessage(propose, to: member)
                    try? await Task.sleep(for: .seconds(1))
                }
                await self?.proposalEnded(member)
            }
        }
    }

    /// `device` is its member's in the call (the first one that answered stays).
    private func resolve(_ device: JID) {
        let member = device.bare
        guard members.contains(member), devices[member] == nil else { return }
        devices[member] = device
        proposeTasks.removeValue(forKey: member)?.cancel()
        if joined {
            eventSink.yield(.participantJoined(FeedID(device.description), display: member.description))
        } else {
            resolveJoin(device)
        }
    }

    /// The proposals to `member` stopped (answered or timed out): a join nobody answered fails.
    private func proposalEnded(_ member: JID) {
        proposeTasks[member] = nil
        if !joined, devices.isEmpty, proposeTasks.isEmpty { resolveJoin(nil) }
    }

    /// A member's device ended the call (`finish`, `retract`, `reject`): its publication and
    /// our sessions towards it are gone, then it.
    private func memberLeft(_ device: JID) {
        let member = device.bare
        guard devices[member] == device else {
            // Declined before its device was known: propose to it no more.
            if members.contains(member) { proposeTasks.removeValue(forKey: member)?.cancel() }
            return
        }
        devices[member] = nil
        members.remove(member)
        for (sid, publication) in publications where publication.device == device {
            publications[sid] = nil
            forgetRestarts(of: sid)
            publication.answerWaiter?.resume(returning: .failure(SignalingError("offerPublication: \(device) left the call")))
        }
        if let gone = memberPublications.removeValue(forKey: device) {
            forgetRestarts(of: gone.sid)
            endReplacementWait(gone.sid)
            eventSink.yield(.feedUnpublished(FeedID(device.description)))
        }
        eventSink.yield(.participantLeft(FeedID(device.description)))
    }

    // MARK: - Jingle

    private func receive(_ request: JingleRequest, from device: JID) {
        guard devices[device.bare] == device else {
            strayRequests += 1
            return
        }
        let sid = request.sessionID
        switch request.action {
        case .sessionInitiate:
            guard publications[sid] == nil else { return }
            memberPublications[device] = FriendPublication(sid: sid, offer: request.session)
            let media = Set(request.session.contents.compactMap { content -> String? in
                if case .rtp(let description) = content.application { description.media } else { nil }
            })
            eventSink.yield(.feedsPublished([RouterFeed(id: FeedID(device.description), display: device.bare.description,
                                                        hasAudio: media.contains("audio"), hasVideo: media.contains("video"))]))
            wakeOfferWaiters()
        case .sessionAccept:
            guard let publication = publications[sid], publication.device == device, let offer = publication.offer else { return }
            rememberAccept(request.session, sid: sid)
            answerArrived(sid: sid, Result<SessionDescription, any Error> {
                SessionDescription(kind: .answer, sdp: try request.session.sdp(answering: offer))
            })
        case .transportInfo:
            receiveTransportInfo(request, from: device)
        case .contentModify:
            // The subscriber's audio fallback: what it wants us to send on each content.
            guard let publication = publications[sid], publication.device == device else { return }
            publications[sid]?.pausedContents = JingleAudioFallback.paused(after: request, publication.pausedContents)
        case .sessionTerminate:
            if let publication = publications[sid], publication.device == device {
                publications[sid] = nil
                forgetRestarts(of: sid)
                publication.answerWaiter?.resume(returning: .failure(SignalingError("offerPublication: \(device) ended the session")))
                eventSink.yield(.hangup(Self.publicationHandle(sid), reason: "\(device) ended the session"))
            } else if memberPublications[device]?.sid == sid {
                memberPublications[device] = nil
                forgetRestarts(of: sid)
                endReplacementWait(sid)
                eventSink.yield(.feedUnpublished(FeedID(device.description)))
            }
        default:
            break
        }
    }

    // MARK: - Waiters

    func waitForFirstDevice() async -> JID? {
        if let first = devices.values.sorted().first { return first }
        let timeout = answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resolveJoin(nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { joinWaiters.append($0) }
    }

    func resolveJoin(_ device: JID?) {
        for waiter in joinWaiters { waiter.resume(returning: device) }
        joinWaiters.removeAll()
    }
}
