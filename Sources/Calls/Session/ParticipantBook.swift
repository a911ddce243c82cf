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
    /// Every media connection of ours to the router (the publication, each subscription): its
    /// working paths after its last report.
    private var routerLegs: [ObjectIdentifier: ConnectionPaths] = [:]
    /// Stats or quality for a participant not in the call (our own stream, a late sample).
    private(set) var ignoredSamples = 0

    /// The roster's events with each participant's connect and disconnect after its
    /// connection's; at the session's end every participant left disconnects before `didDisconnect`.
    mutating func expand(_ events: [CallSessionEvent], session: CallSession? = nil) -> [CallSessionEvent] {
        var out: [CallSessionEvent] = []
        for event in events {
            switch event {
            case .connectionCreated(let connection):
                out.append(event)
                guard participants[connection.connectionId] == nil else { continue }
                var participant = session.map { RemoteParticipant(connection: connection, in: $0) } ?? RemoteParticipant(connection: connection)
                (participant.localPaths, participant.paths) = (ourLeg(to: connection.connectionId), ourLeg(to: connection.connectionId))
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
                routerLegs.removeAll()
                remotePathsReportedAt.removeAll()
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
        return routerLegSampled(paths, source: key)
    }

    /// The paths of one of our media connections to the router after a report (the
    /// publication's, or a subscription's through ``sample(_:source:participant:)``): every
    /// participant whose path runs through our leg is refreshed.
    mutating func routerLegSampled(_ paths: ConnectionPaths, source key: ObjectIdentifier) -> [CallSessionEvent] {
        routerLegs[key] = paths
        return participants.keys.sorted().flatMap { refresh($0) }
    }

    /// A media connection of ours to the router closed.
    mutating func routerLegEnded(_ key: ObjectIdentifier) -> [CallSessionEvent] {
        guard routerLegs.removeValue(forKey: key) != nil else { return [] }
        return participants.keys.sorted().flatMap { refresh($0) }
    }

    /// Subscription `source`'s monitor scored `participant`'s connection anew (it reports on
    /// change only).
    mutating func qualityChanged(_ quality: ConnectionQuality, source key: ObjectIdentifier, participant: String) -> [CallSessionEvent] {
        sources[key, default: Source(participant: participant)].quality = quality
        return refresh(participant)
    }

    /// Subscription `key` ended: its paths and quality no longer count.
    mutating func subscriptionEnded(_ key: ObjectIdentifier) -> [CallSessionEvent] {
        sources.removeValue(forKey: key)
        return routerLegEnded(key)
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
        return refresh(id, farLegChanged: true)
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
            events += refresh(id, farLegChanged: true)
        }
        return events
    }

    /// Whether a path works to any participant.
    var anyPathWorks: Bool { participants.values.contains { $0.paths.isOnline } }

    /// A participant's paths and level from every subscription to its streams: the paths are
    /// every working path of any of them; the level is the worst one scored (one stream that
    /// suffers is a connection that suffers), `.bad` while no path works at all (nothing gets
    /// through, whatever the last score said), `.unknown` before any score.
    private mutating func refresh(_ id: String, farLegChanged: Bool = false) -> [CallSessionEvent] {
        guard var participant = participants[id] else {
            ignoredSamples += 1
            return []
        }
        let mine = sources.values.filter { $0.participant == id }
        let local = ourLeg(to: id)
        let paths = Self.endToEnd(local, participant.remotePaths)
        let scored = mine.map(\.quality).filter { $0 != .unknown }
        let quality = scored.isEmpty ? .unknown : paths.isOnline ? scored.min() ?? .unknown : .bad
        var events: [CallSessionEvent] = []
        if paths != participant.paths || local != participant.localPaths || farLegChanged {
            participant.paths = paths
            participant.localPaths = local
            events.append(.participantPathsChanged(participant))
        }
        if quality != participant.connectionQuality {
            participant.connectionQuality = quality
            events.append(.participantConnectionQualityChanged(participant))
        }
        participants[id] = participant
        return events
    }

    /// Our leg to participant `id`: our subscriptions to its streams, or, when there is none,
    /// any of our media connections to the router.
    private func ourLeg(to id: String) -> ConnectionPaths {
        let subscribed = sources.filter { $0.value.participant == id }.map(\.key)
        let legs = subscribed.isEmpty ? Array(routerLegs.values) : subscribed.compactMap { routerLegs[$0] }
        return legs.reduce(into: ConnectionPaths()) { $0.formUnion($1) }
    }

    /// The whole paths from our leg and theirs (`nil`: unknown, taken as working): each pair of
    /// legs makes one path, classed by the weaker leg (`udpDirect` < `udpRelay` < `tcpRelay`).
    static func endToEnd(_ ours: ConnectionPaths, _ theirs: ConnectionPaths?) -> ConnectionPaths {
        guard let theirs else { return ours }
        let order: [ConnectionPaths] = [.udpDirect, .udpRelay, .tcpRelay]
        var whole = ConnectionPaths()
        for mine in order where ours.contains(mine) {
            for far in order where theirs.contains(far) {
                whole.insert(order[max(order.firstIndex(of: mine) ?? 0, order.firstIndex(of: far) ?? 0)])
            }
        }
        return whole
    }
}
