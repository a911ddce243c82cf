import Observability
import RTCStats
import Foundation

extension CallSession {
    // MARK: - Inputs

    /// The publisher's machine, fed and its actions performed in order.
    func feedPublisher(_ input: PublisherConnectionMachine.Input) async {
        guard var state = publishing else { return }
        let actions = state.machine.receive(input, now: timer.elapsed)
        publishing = state
        await performPublisher(actions, publisher: state.publisher)
    }

    /// An engine event of the publishing peer connection (`true` when it was one).
    func publisherReceived(_ event: MediaEngineEvent) async -> Bool {
        guard let publishing, event.peerConnection == publishing.peerConnection else { return false }
        if case .iceConnectionState(let pc, let state) = event { await feedPublisher(.iceState(pc, state)) }
        return true
    }

    /// A router event on the publisher's participant handle (`true` when it was one).
    func publisherReceived(_ event: SignalingEvent) async -> Bool {
        guard let handle = publishing?.machine.handle else { return false }
        switch event {
        case .mediaUp(let from) where from == handle:
            await feedPublisher(.routerMediaUp(from))
        case .hangup(let from, _) where from == handle:
            await feedPublisher(.routerHangup(from))
        default:
            return false
        }
        return true
    }

    /// A publisher stats sample's selected pair: what it receives (the router's RTCP and
    /// consent responses) stops when its path is lost; what it sends does not.
    func publisherSampled(_ report: StatsReport, peerConnection pc: PeerConnectionID) async {
        let pair = SelectedPairProgress(report)
        await feedPublisher(.statsSample(pc, bytesReceived: pair.bytesReceived, responsesReceived: pair.responsesReceived))
    }

    /// Between stats samples: the publisher's selected-pair progress, for its machine only.
    func checkPublisherHealth() async {
        guard let pc = publishing?.peerConnection, let report = try? await engine.stats(of: pc) else { return }
        guard publishing?.peerConnection == pc else { return }
        await publisherSampled(report, peerConnection: pc)
    }

    // MARK: - Actions

    private func performPublisher(_ actions: [PublisherConnectionMachine.Action], publisher: CallPublisher) async {
        for action in actions {
            guard publishing?.publisher === publisher else { return }      // unpublished meanwhile
            switch action {
            case .emit(let kind):
                guard let stream = publisher.stream else { continue }
                switch kind {
                case .didConnect: publisher.deliver([.didConnect(stream)])
                case .didDisconnect: publisher.deliver([.didDisconnect(stream)])
                case .didReconnect: publisher.deliver([.didReconnect(stream)])
                }
            case .restartIce:
                await restartPublisherIce(publisher)
            case .replacePeerConnection(let pc, _):
                await republish(publisher, replacing: pc)
            case .armTimer(let id, let deadline):
                let task = Task { [weak self] in
                    guard let self else { return }
                    do { try await self.timer.sleep(untilElapsed: deadline) } catch { return }
                    await self.feedPublisher(.timerFired(id))
                }
                timers[ObjectIdentifier(publisher), default: []].append(task)
            case .destroyStream:
                guard let stream = publisher.stream else { continue }
                publisher.deliver([.streamDestroyed(stream, reason: .mediaLost)])
            case .tearDown(let pc, _):
                // The participant handle is our membership of the room: it stays.
                publishing = nil
                cancelPublisherTimers(publisher)
                if let pc {
                    trickle.forget(pc)
                    try? await engine.closePeerConnection(pc)
                }
                try? await signaling.unpublish()
                publisher.setStream(nil)
            }
        }
    }

    /// Our offer with new ICE credentials, on the participant handle; set locally only once the
    /// router has answered it. Set first, the engine's new candidates start checking at once,
    /// still with the router's old credentials: a check the router answers before it restarts
    /// makes a pair the engine selects and the restarted router no longer answers (seen with
    /// Chromium and Janus: one response, no media, until the next restart).
    private func restartPublisherIce(_ publisher: CallPublisher) async {
        guard let pc = publishing?.peerConnection else { return }
        do {
            let offer = try await engine.createOffer(on: pc, iceRestart: true)
            let answer = try await signaling.restartPublisherIce(offer: offer)
            guard publishing?.peerConnection == pc else { return }
            try await engine.setLocalDescription(offer, on: pc)
            try await engine.setRemoteDescription(answer, on: pc)
            await feedPublisher(.answerSent(pc))
        } catch {
            publisher.deliver([.didFail(CallError.wrapping(error, "publisher ICE restart"))])
        }
    }

    /// A new peer connection published on a new participant handle. Our connection (and the
    /// stream's id) follow the router's new participant id when it could not keep the old one.
    private func republish(_ publisher: CallPublisher, replacing old: PeerConnectionID) async {
        trickle.forget(old)
        try? await engine.closePeerConnection(old)
        guard let connection else { return }
        var made: PeerConnectionID?
        do {
            let pc = try await engine.makePeerConnection(configuration.peerConnection)
            made = pc
            trickle.expect(pc)
            publishing?.peerConnection = pc
            let offer = try await preparePublishingOffer(publisher, on: pc)
            let result = try await signaling.republish(offer: offer, display: connection.data, participantID: FeedID(connection.connectionId))
            guard publishing?.peerConnection == pc else {
                // Unpublished (or the session ended) while we waited: take the new feed down again.
                trickle.forget(pc)
                try? await engine.closePeerConnection(pc)
                try? await signaling.unpublish()
                return
            }
            let handle = result.join.participantHandle
            trickle.participantHandle = handle
            adoptParticipantID(result.join, publisher: publisher)
            await feedPublisher(.peerConnectionStarted(pc, handle))
            for candidate in trickle.ready(pc, handle: handle) { try? await signaling.trickle(candidate, on: handle) }
            try await engine.setRemoteDescription(result.answer, on: pc)
            await feedPublisher(.answerSent(pc))
        } catch {
            if let made, publishing?.peerConnection == made { trickle.forget(made) }
            publisher.deliver([.didFail(CallError.wrapping(error, "publish again on a new handle"))])
        }
    }

    /// After a republish: the participant id the router gave (the old one when it could), and
    /// the stream under it.
    private func adoptParticipantID(_ join: RoomJoin, publisher: CallPublisher) {
        guard let connection, var roster else { return }
        if join.participantID.rawValue != connection.connectionId {
            let moved = CallConnection(connectionId: join.participantID.rawValue, creationTime: connection.creationTime, data: connection.data)
            self.connection = moved
            roster.own = join.participantID
            if var stream = publisher.stream {
                stream.streamId = moved.connectionId
                stream.connection = moved
                stream.creationTime = wallClock()
                publisher.setStream(stream)
            }
        }
        let events = roster.receive(.feedsPublished(join.feeds), now: wallClock())
        self.roster = roster
        deliver(events)
    }
}
