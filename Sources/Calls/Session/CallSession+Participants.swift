import Observability
import RTCStats

extension CallSession {
    /// The other participants in the call, by connection id.
    public var participants: [RemoteParticipant] {
        delivery.participants.participants.values.sorted { $0.connectionId < $1.connectionId }
    }

    /// One subscription's paths after a report, for the paths to its participant.
    func pathsSampled(_ paths: ConnectionPaths, of subscription: SubscriptionController) {
        let pathsWorked = delivery.participants.anyPathWorks
        deliver(delivery.participants.sample(paths, source: ObjectIdentifier(subscription), participant: subscription.stream.connection.connectionId))
        pathsToEveryoneChanged(worked: pathsWorked, works: delivery.participants.anyPathWorks)
        deliver(delivery.participants.expireRemotePaths(at: timer.elapsed))
    }

    /// Our publication's paths after a report: our leg to the router, for participants we
    /// receive nothing from.
    func publicationPathsSampled(_ paths: ConnectionPaths, of publication: PublicationController) {
        let pathsWorked = delivery.participants.anyPathWorks
        deliver(delivery.participants.routerLegSampled(paths, source: ObjectIdentifier(publication)))
        pathsToEveryoneChanged(worked: pathsWorked, works: delivery.participants.anyPathWorks)
    }

    /// Our publication closed: its leg no longer counts.
    func publicationPathsEnded(of publication: PublicationController) {
        deliver(delivery.participants.routerLegEnded(ObjectIdentifier(publication)))
    }

    /// Ends our side of the call with participant `id` (``RemoteParticipant/disconnect()``):
    /// its streams destroyed, our subscriptions to them closed at the router, then its
    /// `connectionDestroyed` / `participantDidDisconnect`; when it was the last other
    /// participant, we leave the room (its `participantDidDisconnect` comes with our leave).
    func disconnect(from id: String) async {
        let feed = FeedID(id)
        guard let roster = room?.roster, roster.connections[feed] != nil, !roster.hungUp.contains(feed) else { return }
        let last = roster.isLastOther(feed)
        let destroyed = room?.roster.hangUp(feed) ?? []
        // Its subscribers end first: nothing reaches them after their stream's streamDestroyed.
        for subscription in subscriptions where subscription.stream.connection.connectionId == id {
            await subscription.close(in: self)
        }
        // A relayed publication's connection to it ends too (the others keep theirs).
        await relayedPublication?.closeLink(to: id, endSession: true, in: self)
        deliver(destroyed)
        if last {
            await disconnect()
        } else {
            deliver(room?.roster.hangUpConfirmed(feed) ?? [])
        }
    }

    /// A subscription's monitor scored its participant anew.
    func connectionQualityChanged(_ quality: ConnectionQuality, source: ObjectIdentifier, participant: String) {
        deliver(delivery.participants.qualityChanged(quality, source: source, participant: participant))
    }
}
