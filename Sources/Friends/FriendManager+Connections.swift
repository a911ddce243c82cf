import Calls
import Observability
import FriendConnections
import XMPP
import XMPPClient

// MARK: - The tracker's actions, presence, signalling, engine events

extension FriendManager {
    /// Performs the tracker's actions, in order.
    func perform(_ actions: [FriendPathTracker.Action], cause: FriendPathCause) {
        for action in actions {
            switch action {
            case .openConnection(let friend):
                Task { await self.open(friend) }
            case .closeConnection(let friend):
                close(friend, reason: "gone")
            case .pathsChanged(let friend, let paths):
                yield(.pathsChanged(friend, paths))
                pathsChanged(cause: cause)
            }
        }
    }

    func clientEvent(_ event: XMPPClientEvent) {
        switch event {
        case .roster(.friendAdded(let friend)), .roster(.friendChanged(let friend)):
            let input: FriendPathTracker.Input = friend.availability == .offline ? .friendOffline(friend.jid) : .friendOnline(friend.jid)
            perform(tracker.receive(input, now: now), cause: .presence)
        case .roster(.friendRemoved(let jid)):
            perform(tracker.receive(.friendOffline(jid), now: now), cause: .presence)
        case .connected:
            // A new or resumed stream usually follows a network change: measure again, and
            // restart ICE on every connection (a request the responder sent while the stream
            // was down is lost; a restart of a connection that still works costs a few packets).
            streamRestored()
            discoverabilityInput(.networkChanged)
            restartIceOnEveryConnection()
        case .connectionLost:
            streamLost()
        case .disconnected:
            streamEnded()
        case .roster(.subscriptionRequest), .droppedMessage:
            break
        }
    }

    /// Sets up the connection to `friend` (bare), who came online: the offering side makes the
    /// peer connection and offers, the other waits for the offer.
    func open(_ friend: JID) async {
        guard started, links[friend] == nil, let own = ownJID,
              let resource = await client.availableResources(of: friend).first,
              links[friend] == nil, tracker.connectedFriends.contains(friend) else { return }
        let role = FriendSessionRole(own: own, friend: resource)
        links[friend] = FriendLink(friend: resource, role: role, sid: role == .initiator ? Self.newSessionID() : "",
                                   silentPairRestart: SilentPairRestart(interval: configuration.statsInterval))
        if role == .initiator { await offer(to: friend) }
    }

    private func offer(to friend: JID) async {
        guard let link = links[friend], let signalling else { return }
        do {
            guard let pc = try await makePeerConnection(for: friend, sid: link.sid) else { return }
            try await engine.openDataChannel(label: configuration.dataChannelLabel, on: pc)
            let offer = try await engine.createOffer(on: pc, iceRestart: false)
            try await engine.setLocalDescription(offer, on: pc)
            try await signalling.send(.offer(sid: link.sid, offer), to: link.friend)
            descriptionSent(friend, sid: link.sid)
        } catch {
            failed(friend, sid: link.sid, "offer: \(error)")
        }
    }

    /// A peer connection for the session `sid` with `friend`, or `nil` when the session ended
    /// while it was made (then closed again).
    private func makePeerConnection(for friend: JID, sid: String) async throws -> PeerConnectionID? {
        let pc = try await engine.makePeerConnection(peerConnection)
        statistics.connectionsOpened += 1
        guard links[friend]?.sid == sid, links[friend]?.peerConnection == nil else {
            try? await engine.closePeerConnection(pc)
            statistics.connectionsClosed += 1
            return nil
        }
        links[friend]?.peerConnection = pc
        owners[pc] = friend
        return pc
    }

    /// Our description went out: the candidates gathered meanwhile follow it.
    func descriptionSent(_ friend: JID, sid: String) {
        guard links[friend]?.sid == sid, let link = links[friend] else { return }
        links[friend]?.descriptionSent = true
        links[friend]?.pendingLocal = []
        for candidate in link.pendingLocal { sendCandidate(candidate, link: link) }
    }

    private func sendCandidate(_ candidate: IceCandidate, link: FriendLink) {
        guard let signalling else { return }
        Task { try? await signalling.send(.candidates(sid: link.sid, [candidate]), to: link.friend) }
    }

    /// One signal from `sender` (a full JID); `nil` was malformed.
    func receive(_ signal: FriendSignal?, from sender: JID) async {
        guard let signal else {
            statistics.signalsRefused += 1
            return
        }
        let friend = sender.bare
        switch signal {
        case .offer(let sid, let offer):
            await answer(offer, sid: sid, from: sender)
        case .answer(let sid, let answer):
            guard let link = links[friend], link.sid == sid, link.role == .initiator, let pc = link.peerConnection, !link.remoteDescriptionSet else {
                statistics.signalsRefused += 1
                return
            }
            do {
                try await engine.setRemoteDescription(answer, on: pc)
                if links[friend]?.sid == sid { links[friend]?.remoteSDP = answer.sdp }
                remoteDescriptionSet(friend, sid: sid)
            } catch {
                failed(friend, sid: sid, "answer: \(error)")
            }
        case .candidates(let sid, let candidates):
            guard let link = links[friend], link.sid == sid else {
                statistics.signalsRefused += 1
                return
            }
            if link.remoteDescriptionSet, let pc = link.peerConnection {
                for candidate in candidates { try? await engine.addRemoteCandidate(candidate, on: pc) }
            } else {
                links[friend]?.pendingRemote += candidates
            }
        case .iceRestart(let sid, let credentials):
            await receiveIceRestart(credentials, sid: sid, from: sender)
        case .iceRestartRequest(let sid):
            guard let link = links[friend], link.sid == sid, link.role == .initiator else {
                statistics.signalsRefused += 1
                return
            }
            await restartIce(friend, sid: sid)
        case .terminate(let sid, let reason):
            guard links[friend]?.sid == sid else { return }
            // A friend who leaves or stops ends the session with `gone` or `success`: no failure.
            let clean = reason == "gone" || reason == "success"
            failed(friend, sid: sid, "the friend ended the session (\(reason))", tellFriend: false, report: !clean)
        }
    }

    /// The responder's side: a new session replaces any earlier one with the same friend.
    private func answer(_ offer: SessionDescription, sid: String, from sender: JID) async {
        let friend = sender.bare
        guard started, offer.kind == .offer, !sid.isEmpty,
              await client.friends.contains(where: { $0.jid == friend }) else {
            statistics.signalsRefused += 1
            return
        }
        if !tracker.connectedFriends.contains(friend) {
            // The offer overtook the friend's presence: the connection is this one.
            _ = tracker.receive(.friendOnline(friend), now: now)
        }
        if links[friend]?.peerConnection != nil { closePeerConnection(of: friend) }
        links[friend] = FriendLink(friend: sender, role: .responder, sid: sid,
                                   silentPairRestart: SilentPairRestart(interval: configuration.statsInterval))
        do {
            guard let pc = try await makePeerConnection(for: friend, sid: sid) else { return }
            try await engine.setRemoteDescription(offer, on: pc)
            if links[friend]?.sid == sid { links[friend]?.remoteSDP = offer.sdp }
            remoteDescriptionSet(friend, sid: sid)
            let answer = try await engine.createAnswer(on: pc)
            guard let signalling, links[friend]?.sid == sid else { return }
            try await signalling.send(.answer(sid: sid, answer), to: sender)
            descriptionSent(friend, sid: sid)
        } catch {
            failed(friend, sid: sid, "answer: \(error)")
        }
    }

    private func remoteDescriptionSet(_ friend: JID, sid: String) {
        guard let link = links[friend], link.sid == sid, let pc = link.peerConnection else { return }
        links[friend]?.remoteDescriptionSet = true
        links[friend]?.pendingRemote = []
        let engine = engine
        Task { for candidate in link.pendingRemote { try? await engine.addRemoteCandidate(candidate, on: pc) } }
    }

    func engineEvent(_ event: MediaEngineEvent) {
        guard let pc = event.peerConnection, let friend = owners[pc], let link = links[friend], link.peerConnection == pc else { return }
        switch event {
        case .candidate(_, let candidate?):
            if link.descriptionSent { sendCandidate(candidate, link: link) } else { links[friend]?.pendingLocal.append(candidate) }
        case .dataChannelOpen(_, let label) where label == configuration.dataChannelLabel:
            links[friend]?.channelOpen = true
        case .connectionState(_, .failed):
            failed(friend, sid: link.sid, "ICE failed")
        case .iceConnectionState(_, .disconnected):
            restartIfStillDisconnected(friend, sid: link.sid)
        case .iceConnectionState(_, .connected), .iceConnectionState(_, .completed):
            links[friend]?.disconnectionRestart?.cancel()
            links[friend]?.disconnectionRestart = nil
        default:
            break
        }
    }

    /// Every stats interval: each connection's keepalive, then its stats. Each friend's paths
    /// are decided from its own fresh report (packet ages at read time), not by a global tick:
    /// a round over many connections takes longer than the interval (measured 7.7 ms per
    /// connection), and a tick at its start would expire pairs read a round ago. A report that
    /// cannot be read is no evidence of a working path. A connection whose selected pair went
    /// silent is read by its own faster loop meanwhile (``FriendStatsCadence``), not here: two
    /// reads of one connection in flight could reach the tracker out of order.
    func poll() async {
        for (friend, link) in links.sorted(by: { $0.key < $1.key }) {
            guard let pc = link.peerConnection else { continue }
            if link.channelOpen { try? await engine.sendData("keepalive", label: configuration.dataChannelLabel, on: pc) }
            guard links[friend]?.peerConnection == pc, links[friend]?.fastReads == nil else { continue }
            if await readPaths(of: friend, on: pc) { startFastReads(of: friend, on: pc) }
        }
    }

    /// Reads the stats of `friend`'s connection `pc` into the tracker, and restarts ICE when its
    /// selected pair has been silent too long (``SilentPairRestart``); whether the next read
    /// should come sooner than the next round (its selected pair is silent).
    private func readPaths(of friend: JID, on pc: PeerConnectionID) async -> Bool {
        let report = try? await engine.stats(of: pc)
        guard links[friend]?.peerConnection == pc else { return false }
        let at = now
        let observations = report.flatMap { links[friend]?.reader.observations(in: $0, at: at) } ?? []
        perform(tracker.receive(.pairs(friend, observations), now: at), cause: .stats)
        if links[friend]?.silentPairRestart.restartNow(after: observations, at: at) == true {
            statistics.silentPairRestarts += 1
            restartIce(friend)
        }
        return cadence.delay(after: observations, at: at) < cadence.interval
    }

    /// Reads `friend`'s connection `pc` every ``FriendStatsCadence/fastInterval`` until its
    /// selected pair answers again, its silence passes the cadence's window, or the connection
    /// goes; the rounds skip it meanwhile.
    private func startFastReads(of friend: JID, on pc: PeerConnectionID) {
        guard links[friend]?.peerConnection == pc, links[friend]?.fastReads == nil else { return }
        statistics.fastReadEpisodes += 1
        let interval = cadence.fastInterval
        links[friend]?.fastReads = Task { [weak self, clock] in
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard let self, await self.fastRead(of: friend, on: pc) else { return }
            }
        }
    }

    /// One read of the fast loop; whether to go on.
    private func fastRead(of friend: JID, on pc: PeerConnectionID) async -> Bool {
        guard links[friend]?.peerConnection == pc else { return false }
        let more = await readPaths(of: friend, on: pc)
        guard links[friend]?.peerConnection == pc else { return false }
        if !more { links[friend]?.fastReads = nil }
        return more
    }

    /// The session `sid` with `friend` failed or was ended by them: its peer connection closes
    /// and its paths go (reported as a failure when `report`); the offering side offers again
    /// after ``retryDelay`` if the friend is still online.
    func failed(_ friend: JID, sid: String, _ reason: String, tellFriend: Bool = true, report: Bool = true) {
        guard let link = links[friend], link.sid == sid else { return }
        if tellFriend, let signalling { Task { try? await signalling.send(.terminate(sid: sid, reason: "connectivity-error"), to: link.friend) } }
        closePeerConnection(of: friend)
        links[friend] = nil
        if report {
            statistics.connectionsFailed += 1
            yield(.connectionFailed(friend, reason: reason))
        }
        perform(tracker.receive(.pairs(friend, []), now: now), cause: .stats)
        guard link.role == .initiator else { return }
        let delay = retryDelay
        Task { [weak self, clock] in
            try? await clock.sleep(for: delay)
            await self?.open(friend)
        }
    }

    /// The tracker closed the connection (the friend went offline): tell them if a session runs.
    func close(_ friend: JID, reason: String) {
        guard let link = links.removeValue(forKey: friend) else { return }
        if link.peerConnection != nil, !link.sid.isEmpty, let signalling {
            Task { try? await signalling.send(.terminate(sid: link.sid, reason: "gone"), to: link.friend) }
        }
        if let pc = link.peerConnection { closeEnginePeerConnection(pc) }
    }

    private func closePeerConnection(of friend: JID) {
        guard let pc = links[friend]?.peerConnection else { return }
        links[friend]?.peerConnection = nil
        closeEnginePeerConnection(pc)
    }

    private func closeEnginePeerConnection(_ pc: PeerConnectionID) {
        owners[pc] = nil
        statistics.connectionsClosed += 1
        let engine = engine
        Task { try? await engine.closePeerConnection(pc) }
    }

    static func newSessionID() -> String {
        (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 36) }.joined()
    }
}
