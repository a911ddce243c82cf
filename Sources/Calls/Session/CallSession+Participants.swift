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

    /// A subscription's monitor scored its participant anew.
    func connectionQualityChanged(_ quality: ConnectionQuality, source: ObjectIdentifier, participant: String) {
        deliver(delivery.participants.qualityChanged(quality, source: source, participant: participant))
    }
}
