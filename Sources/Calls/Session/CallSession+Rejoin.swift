import Foundation

extension CallSession {
    /// The signaling session is gone (Janus: timed out, or restarted): every router handle is
    /// dead. Join again; the app sees `streamDestroyed` / `streamCreated` only for streams that
    /// really left or came back under a new id. Subscribers of streams still there get a new
    /// handle and peer connection (their machines see a router hangup), the publisher publishes
    /// again. When every attempt fails the session ends.
    func rejoin(after reason: String) async {
        guard let connection, roster != nil else { return }
        var delay = Duration.seconds(1)
        for attempt in 1...max(1, configuration.rejoinAttempts) {
            let join: RoomJoin
            do {
                join = try await signaling.join(display: connection.data)
            } catch {
                guard attempt < configuration.rejoinAttempts else { break }
                let deadline = timer.elapsed + delay
                do { try await timer.sleep(untilElapsed: deadline) } catch { return }
                delay *= 2
                continue
            }
            guard self.connection != nil, var roster else { return }
            self.connection = CallConnection(connectionId: join.participantID.rawValue, creationTime: connection.creationTime,
                                             data: connection.data)
            roster.own = join.participantID
            trickle.participantHandle = join.participantHandle
            let events = roster.rejoined(join.feeds, now: wallClock())
            self.roster = roster
            for case .streamDestroyed(let stream, _) in events {
                for (key, state) in subscriptions where state.subscriber.stream.streamId == stream.streamId {
                    await tearDown(state)
                    forget(key)
                }
            }
            deliver(events)
            for (key, state) in subscriptions {
                if let handle = state.machine.handle { await feed(key, .routerHangup(handle)) }
            }
            if let publishing {
                self.publishing = nil
                cancelPublisherTimers(publishing.publisher)
                trickle.forget(publishing.peerConnection)
                try? await engine.closePeerConnection(publishing.peerConnection)
                do {
                    try await publish(publishing.publisher)
                } catch {
                    deliver([.didFail(CallError.wrapping(error, "publish again after rejoining"))])
                }
            }
            return
        }
        deliver([.didFail(CallError(.notConnected, "signaling lost (\(reason)) and rejoining failed"))])
        await endSession()
    }
}
