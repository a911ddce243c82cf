import Observability
import RTCStats

/// The other participants as a value (docs/spec/sessions.md §5): who is in the call (from the roster's
/// `connectionCreated` / `connectionDestroyed`), the paths to each (from the stats of our
/// subscribers to its streams) and its connection quality. Paths never end a participant.
struct ParticipantBook: Sendable {
    /// What one subscription says of the participant whose stream it receives.
    private struct Source: Sendable {
        var participant: String
        /// Its working paths after its last report.
        var paths: ConnectionPaths = []
        /// Its monitor's connection quality, once scored.
        var quality = ConnectionQuality.unknown
    }

    private(set) var participants: [String: RemoteParticipant] = [:]
    private var sources: [ObjectIdentifier: Source] = [:]
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
    /// a `participantPathsChanged` when that participant's paths changed (and a
    /// `participantConnectionQualityChanged` when its level follows).
    mutating func sample(_ paths: ConnectionPaths, source key: ObjectIdentifier, participant: String) -> [CallSessionEvent] {
        sources[key, default: Source(participant: participant)].paths = paths
        return refresh(participant)
    }

    /// Subscription `source`'s monitor scored `participant`'s connection anew (it reports on
    /// change only).
    mutating func qualityChanged(_ quality: ConnectionQuality, source key: ObjectIdentifier, participant: String) -> [CallSessionEvent] {
        sources[key, default: Source(participant: participant)].quality = quality
        return refresh(participant)
    }

    /// Subscription `key` ended: its paths and quality no longer count.
    mutating func subscriptionEnded(_ key: ObjectIdentifier) -> [CallSessionEvent] {
        guard let source = sources.removeValue(forKey: key) else { return [] }
        return refresh(source.participant)
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

    /// A participant's paths and level from every subscription to its streams: the paths are
    /// every working path of any of them; the level is the worst one scored (one stream that
    /// suffers is a connection that suffers), `.bad` while no path works at all (nothing gets
    /// through, whatever the last score said), `.unknown` before any score.
    private mutating func refresh(_ id: String) -> [CallSessionEvent] {
        guard var participant = participants[id] else {
            ignoredSamples += 1
            return []
        }
        let mine = sources.values.filter { $0.participant == id }
        let paths = mine.reduce(into: ConnectionPaths()) { $0.formUnion($1.paths) }
        let scored = mine.map(\.quality).filter { $0 != .unknown }
        let quality = scored.isEmpty ? .unknown : paths.isOnline ? scored.min() ?? .unknown : .bad
        var events: [CallSessionEvent] = []
        if paths != participant.paths {
            participant.paths = paths
            events.append(.participantPathsChanged(participant))
        }
        if quality != participant.connectionQuality {
            participant.connectionQuality = quality
            events.append(.participantConnectionQualityChanged(participant))
        }
        participants[id] = participant
        return events
    }
}
