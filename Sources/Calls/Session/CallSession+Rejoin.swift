import Foundation

extension CallSession {
    /// The signaling session is gone (Janus: timed out, or restarted): every router handle is
    /// dead. Join again; the app sees `streamDestroyed` / `streamCreated` only for streams that
    /// really left or came back under a new id. Subscribers of streams still there get a new
    /// handle and peer connection (their machines see a router hangup), the publisher publishes
    /// again. When every attempt fails the session ends.
    func rejoin(after reason: String) async {
        guard let own = connection else { return }
        var delay = Duration.seconds(1)
        for attempt in 1...max(1, configuration.rejoinAttempts) {
            let join: RoomJoin
            do {
                join = try await signaling.join(display: own.data)
            } catch {
                guard attempt < configuration.rejoinAttempts else { break }
                let deadline = timer.elapsed + delay
                do { try await timer.sleep(untilElapsed: deadline) } catch { return }
                delay *= 2
                continue
            }
            guard var room else { return }
            room.own = CallConnection(connectionId: join.participantID.rawValue, creationTime: own.creationTime, data: own.data)
            room.roster.own = join.participantID
            room.trickle.participantHandle = join.participantHandle
            let events = room.roster.rejoined(join, now: wallClock())
            self.room = room
            await closeSubscriptions(to: events)
            deliver(events)
            for subscription in subscriptions {
                if let handle = subscription.connection.handle { await subscription.connection.feed(.routerHangup(handle), in: self) }
            }
            if let publication {
                await publication.close(.dropped, in: self)
                do {
                    try await publish(publication.publisher)
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
