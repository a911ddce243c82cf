import Observability
import RTCStats

/// The other participants as a value (docs/spec/sessions.md §5): who is in the call (from the roster's
/// `connectionCreated` / `connectionDestroyed`), the paths to each (from the stats of our
/// subscribers to its streams) and its connection quality. Paths never end a participant.
struct ParticipantBook: Sendable {
    /// One subscription's paths, for the participant whose stream it receives.
    private struct PathSource: Sendable {
        var participant: String
        var paths: ConnectionPaths
    }

    private(set) var participants: [String: RemoteParticipant] = [:]
    private var sources: [ObjectIdentifier: PathSource] = [:]
    /// Stats or quality for a participant not in the call (our own stream, a late sample).
    private(set) var ignoredSamples = 0

    /// The roster's events with each participant's connect and disconnect after its
    /// connection's; at the session's end every participant left disconnects before `didDisconnect`.
    mutating func expand(_ events: [CallSessionEvent]) -> [CallSessionEvent] {
        var out: [CallSessionEvent] = []
        for event in events {
            switch event {
            case .connectionCreated(let connection):
                out.append(event)
                guard participants[connection.connectionId] == nil else { continue }
                let participant = RemoteParticipant(connection: connection)
                participants[connection.connectionId] = participant
                out.append(.participantDidConnect(participant))
            case .connectionDestroyed(let connection):
                out.append(event)
                if let participant = participants.removeValue(forKey: connection.connectionId) {
                    out.append(.participantDidDisconnect(participant))
                }
            case .didDisconnect:
                let left = participants.values.sorted { $0.connectionId < $1.connectionId }
                out += left.map { .participantDidDisconnect($0) }
                participants.removeAll()
                sources.removeAll()
                out.append(event)
            default:
                out.append(event)
            }
        }
        return out
    }

    /// The paths of subscription `source` (receiving a stream of `participant`) after a report:
    /// a `participantPathsChanged` when that participant's paths changed.
    mutating func sample(_ paths: ConnectionPaths, source key: ObjectIdentifier, participant: String) -> [CallSessionEvent] {
        sources[key] = PathSource(participant: participant, paths: paths)
        return refreshPaths(of: participant)
    }

    /// Subscription `key` ended: its paths no longer count.
    mutating func subscriptionEnded(_ key: ObjectIdentifier) -> [CallSessionEvent] {
        guard let source = sources.removeValue(forKey: key) else { return [] }
        return refreshPaths(of: source.participant)
    }

    /// The quality engine scored `participant` anew.
    mutating func qualityChanged(_ quality: ConnectionQuality, participant id: String) -> [CallSessionEvent] {
        guard var participant = participants[id] else {
            ignoredSamples += 1
            return []
        }
        guard participant.connectionQuality != quality else { return [] }
        participant.connectionQuality = quality
        participants[id] = participant
        return [.participantConnectionQualityChanged(participant)]
    }

    /// How long a participant's reported paths stand without a newer message (the sender-stats
    /// lifetime of `StatsEngineConfiguration`, 5 s: messages come every second).
    static let remotePathsLifetime: Duration = .seconds(5)
    /// When each participant's paths were last reported (session time).
    private var remotePathsReportedAt: [String: Duration] = [:]

    /// A sender-stats message from `participant` told its own paths to the router at `time`: a
    /// `participantPathsChanged` when they differ from what it said before.
    mutating func remotePathsReported(_ paths: ConnectionPaths, participant id: String, at time: Duration) -> [CallSessionEvent] {
        guard var participant = participants[id] else {
            ignoredSamples += 1
            return []
        }
        remotePathsReportedAt[id] = time
        guard participant.remotePaths != paths else { return [] }
        participant.remotePaths = paths
        participants[id] = participant
        return [.participantPathsChanged(participant)]
    }

    /// Reported paths older than ``remotePathsLifetime`` at `time` are unknown again (`nil`):
    /// the participant stopped saying (its messages stopped reaching us), so what it said last
    /// is no longer known to hold.
    mutating func expireRemotePaths(at time: Duration) -> [CallSessionEvent] {
        var events: [CallSessionEvent] = []
        for (id, reported) in remotePathsReportedAt where time - reported > Self.remotePathsLifetime {
            remotePathsReportedAt[id] = nil
            guard var participant = participants[id], participant.remotePaths != nil else { continue }
            participant.remotePaths = nil
            participants[id] = participant
            events.append(.participantPathsChanged(participant))
        }
        return events
    }

    /// Whether a path works to any participant.
    var anyPathWorks: Bool { participants.values.contains { $0.paths.isOnline } }

    /// A participant's paths: every working path of every subscriber to its streams.
    private mutating func refreshPaths(of id: String) -> [CallSessionEvent] {
        guard var participant = participants[id] else {
            ignoredSamples += 1
            return []
        }
        let paths = sources.values.filter { $0.participant == id }.reduce(into: ConnectionPaths()) { $0.formUnion($1.paths) }
        guard paths != participant.paths else { return [] }
        participant.paths = paths
        participants[id] = participant
        return [.participantPathsChanged(participant)]
    }
}
