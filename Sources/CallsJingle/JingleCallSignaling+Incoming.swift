import Calls
import Jingle
import XMPP
import XMPPClient

/// What the client hands over: a Jingle IQ or a XEP-0353 message, with its sender.
enum JingleCallInput: Sendable {
    case request(JingleRequest, from: JID)
    case message(JingleMessage, from: JID)
    /// The friend sent a Jingle IQ or XEP-0353 message that does not read (refused or dropped).
    case malformed
    /// The friend asks for an ICE restart of a session (JingleCallSignaling+Restart.swift).
    case iceRestartRequest(sid: String, from: JID)
    /// The friend's new session replacing its publication `replacing` (JingleSessionReplacing.swift).
    case replacement(JingleRequest, replacing: String, from: JID)
    /// The friend asks for a new session in place of our publication `sid`.
    case replacementRequest(sid: String, from: JID)
    /// A replacement or replacement request refused by the IQ handler (counted).
    case refusedReplacement
}

extension JingleCallSignaling {
    /// Takes the client's Jingle IQs (from the friend only; anyone else is refused with
    /// `service-unavailable`, a malformed one with `bad-request`) and XEP-0353 messages.
    func listen() async {
        guard incomingTask == nil else { return }
        let (stream, sink) = AsyncStream<JingleCallInput>.makeStream()
        let friend = friend, directory = sessionDirectory
        await client.handleRequests(namespace: JingleNamespace.jingle) { iq, from in
            let replaced = iq.children.first.flatMap(JingleReplacementCheck.replacedSession(in:))
            guard from.bare == friend else {
                if replaced != nil { sink.yield(.refusedReplacement) }
                return "service-unavailable"
            }
            guard let payload = iq.children.first, let request = try? JingleRequest(element: payload) else {
                sink.yield(.malformed)
                return "bad-request"
            }
            if let replaced {
                if let refusal = JingleReplacementCheck.refusal(replacing: replaced, from: from, in: directory) {
                    sink.yield(.refusedReplacement)
                    return refusal
                }
                sink.yield(JingleSessionReplaceShape.isRequest(payload) ? .replacementRequest(sid: replaced, from: from)
                                                                         : .replacement(request, replacing: replaced, from: from))
                return nil
            }
            sink.yield(JingleIceRestartShape.isRequest(payload) ? .iceRestartRequest(sid: request.sessionID, from: from) : .request(request, from: from))
            return nil
        }
        await client.handleMessages(namespace: JingleNamespace.jingleMessage) { payload, from in
            guard from.bare == friend else { return }
            guard let message = try? JingleMessage(element: payload) else {
                sink.yield(.malformed)
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
        case .request(let request, let from): receive(request, from: from)
        case .malformed: malformedInputs += 1
        case .iceRestartRequest(let sid, let from) where from == friendDevice: receiveRestartRequest(sid: sid)
        case .iceRestartRequest: break
        case .replacement(let request, let old, let from) where from == friendDevice: receiveReplacement(request, of: old, from: from)
        case .replacementRequest(let sid, let from) where from == friendDevice: receiveReplacementRequest(sid: sid, from: from)
        case .replacement, .replacementRequest, .refusedReplacement: replacements.refused += 1
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
