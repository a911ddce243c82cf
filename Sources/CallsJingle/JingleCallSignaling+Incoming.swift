import Calls
import Jingle
import XMPP
import XMPPClient

/// What the client hands over: a Jingle IQ or a XEP-0353 message, with its sender.
enum JingleCallInput: Sendable {
    case iq(JingleCallIQ)
    case message(JingleMessage, from: JID)
    /// The friend sent a XEP-0353 message that does not read (dropped).
    case malformedMessage
}

extension JingleCallSignaling {
    /// Takes the client's Jingle IQs (from the friend only; anyone else is refused with
    /// `service-unavailable`, a malformed one with `bad-request`) and XEP-0353 messages.
    func listen() async {
        guard incomingTask == nil else { return }
        let (stream, sink) = AsyncStream<JingleCallInput>.makeStream()
        let friend = friend, directory = sessionDirectory
        await client.handleRequests(namespace: JingleNamespace.jingle) { iq, from in
            let (input, error) = JingleCallIQ.sort(iq, from: from, aMember: from.bare == friend, directory: directory)
            if let input { sink.yield(.iq(input)) }
            return error
        }
        await client.handleMessages(namespace: JingleNamespace.jingleMessage) { payload, from in
            guard from.bare == friend else { return }
            guard let message = try? JingleMessage(element: payload) else {
                sink.yield(.malformedMessage)
                return
            }
            sink.yield(.message(message, from: from))
        }
        incomingTask = Task { [weak self] in
            for await input in stream { await self?.receive(input) }
        }
    }

    func receive(_ input: JingleCallInput) async {
        switch input {
        case .message(let message, let from): await receive(message, from: from)
        case .iq(.request(let request, let from)): receive(request, from: from)
        case .iq(.malformed), .malformedMessage: malformedInputs += 1
        case .iq(.iceRestartRequest(let sid, let from)) where from == friendDevice: receiveRestartRequest(sid: sid)
        case .iq(.iceRestartRequest): break
        case .iq(.replacement(let request, let old, let from)) where from == friendDevice: receiveReplacement(request, of: old, from: from)
        case .iq(.replacementRequest(let sid, let from)) where from == friendDevice: receiveReplacementRequest(sid: sid, from: from)
        case .iq(.replacement), .iq(.replacementRequest), .iq(.refusedReplacement): replacements.refused += 1
        }
    }

    private func receive(_ message: JingleMessage, from device: JID) async {
        switch (message.kind, role) {
        case (.propose, .callee) where friendDevice == nil && own != nil:
            callID = message.sessionID
            try? await client.sendMessage(JingleMessage(.proceed, sessionID: message.sessionID).element, to: device)
            resolveDevice(device)
        case (.proceed, .caller), (.accept, .caller):
            guard message.sessionID == callID, friendDevice == nil else { return }
            resolveDevice(device)
        case (.finish, _), (.retract, _), (.reject, _):
            guard message.sessionID == callID, device == friendDevice || friendDevice == nil else { return }
            if friendDevice == nil { return resolveDevice(nil) }
            if let gone = friendPublication {
                endReplacementWait(gone.sid)
                friendPublication = nil
                eventSink.yield(.feedUnpublished(FeedID(device.description)))
            }
            eventSink.yield(.participantLeft(FeedID(device.description)))
        default:
            break
        }
    }

    private func receive(_ request: JingleRequest, from device: JID) {
        guard device == friendDevice else { return }
        let feed = FeedID(device.description)
        switch request.action {
        case .sessionInitiate:
            guard request.sessionID != publication?.sid else { return }
            friendPublication = FriendPublication(sid: request.sessionID, offer: request.session)
            let media = Set(request.session.contents.compactMap { content -> String? in
                if case .rtp(let description) = content.application { description.media } else { nil }
            })
            eventSink.yield(.feedsPublished([RouterFeed(id: feed, display: friend.description, hasAudio: media.contains("audio"), hasVideo: media.contains("video"))]))
            wakeOfferWaiters()
        case .sessionAccept:
            guard let publication, request.sessionID == publication.sid else { return }
            let answer = Result<SessionDescription, any Error> {
                SessionDescription(kind: .answer, sdp: try request.session.sdp(answering: publication.offer))
            }
            rememberAccept(request.session, sid: publication.sid)
            answerArrived(sid: publication.sid, answer)
        case .transportInfo:
            receiveTransportInfo(request)
        case .contentModify:
            // The friend's audio fallback: what it wants us to send on each content.
            guard let publication, request.sessionID == publication.sid else { return }
            self.publication?.pausedContents = JingleAudioFallback.paused(after: request, publication.pausedContents)
        case .sessionTerminate:
            if request.sessionID == friendPublication?.sid {
                endReplacementWait(request.sessionID)
                friendPublication = nil
                eventSink.yield(.feedUnpublished(feed))
            }
        default:
            break
        }
    }

    // MARK: - Waiters

    func waitForFriendDevice() async -> JID? {
        if let friendDevice { return friendDevice }
        let timeout = answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resolveDevice(nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { deviceWaiters.append($0) }
    }

    func resolveDevice(_ device: JID?) {
        if let device { friendDevice = device }
        for waiter in deviceWaiters { waiter.resume(returning: device) }
        deviceWaiters.removeAll()
    }

    func answerArrived(sid: String, _ answer: Result<SessionDescription, any Error>) {
        guard publication?.sid == sid, publication?.answer == nil else { return }
        publication?.answer = answer
        publication?.answerWaiter?.resume(returning: answer)
        publication?.answerWaiter = nil
    }

    func wakeOfferWaiters() {
        for waiter in offerWaiters { waiter.resume() }
        offerWaiters.removeAll()
    }

    /// Sends our subscription's `session-accept` with the candidates gathered so far (once).
    func sendAccept(sid: String) async {
        guard let publication = friendPublication, publication.sid == sid, !publication.accepted,
              var answer = publication.answer, let device = friendDevice else { return }
        friendPublication?.accepted = true
        for candidate in publication.gathered {
            guard let trickled = try? JingleTrickleCandidate(sdpCandidate: candidate.candidate, sdpMid: candidate.sdpMid ?? "0"),
                  let index = answer.contents.firstIndex(where: { $0.name == trickled.contentName }) else { continue }
            answer.contents[index].transport?.candidates.append(trickled.candidate)
        }
        let request = JingleRequest(action: .sessionAccept, sessionID: sid, responder: own?.description, session: answer)
        try? await client.set(request.element, to: device)
    }
}
