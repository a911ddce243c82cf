import Observability
import RTCStats

extension CallSession {
    /// The other participants in the call, by connection id.
    public var participants: [RemoteParticipant] {
        participantBook.participants.values.sorted { $0.connectionId < $1.connectionId }
    }

    /// Before a subscriber's stats are ingested: listens, once per subscriber, to its monitor's
    /// connection-quality changes (on change only, at most once per stats sample).
    func watchConnectionQuality(_ key: ObjectIdentifier, _ subscriber: CallSubscriber) {
        guard qualityWatchers[key] == nil else { return }
        let participant = subscriber.stream.connection.connectionId
        let callbacks = subscriber.statsMonitor.events
        qualityWatchers[key] = Task { [weak self] in
            for await callback in callbacks {
                guard case .participantConnectionQualityChanged(let quality) = callback.event else { continue }
                await self?.connectionQualityChanged(quality, participant: participant)
            }
        }
    }

    /// One subscriber's report, for the paths to its participant.
    func samplePaths(_ report: StatsReport, key: ObjectIdentifier, subscriber: CallSubscriber, peerConnection: PeerConnectionID) {
        let pathsWorked = participantBook.anyPathWorks
        deliver(participantBook.sample(report, key: key, participant: subscriber.stream.connection.connectionId, peerConnection: peerConnection))
        pathsToEveryoneChanged(worked: pathsWorked, works: participantBook.anyPathWorks)
        deliver(participantBook.expireRemotePaths(at: timer.elapsed))
    }

    /// A subscriber ended: its paths stop counting, its quality listener stops.
    func participantSubscriptionEnded(_ key: ObjectIdentifier) {
        qualityWatchers.removeValue(forKey: key)?.cancel()
        deliver(participantBook.subscriptionEnded(key))
    }

    private func connectionQualityChanged(_ quality: ConnectionQuality, participant: String) {
        deliver(participantBook.qualityChanged(quality, participant: participant))
    }
}
