import Calls
import Connectivity
import RTCStats

extension CallEventPrinter {
    /// The connection-state lines (docs/spec/sessions.md §5): our discoverability, each participant's
    /// connect, disconnect and paths. Connection quality is already printed from the stats
    /// callbacks as `participant.connectionQualityChanged`, so the session's copy is not.
    func connectionLine(_ event: CallSessionEvent) {
        switch event {
        case .connectionStateChanged(let state):
            line(callback: TimelineEventName.sessionConnectionStateChanged, peer: "session", stream: "",
                 data: .object([StatsField("connectionState", .string(state.rawValue))]))
        case .participantDidConnect(let participant):
            line(callback: TimelineEventName.participantDidConnect, peer: "session", stream: "", data: Self.json(participant))
        case .participantDidDisconnect(let participant):
            line(callback: TimelineEventName.participantDidDisconnect, peer: "session", stream: "", data: Self.json(participant))
        case .participantPathsChanged(let participant):
            line(callback: TimelineEventName.participantPathsChanged, peer: "session", stream: "", data: Self.json(participant))
        default:
            break
        }
    }

    /// A participant: its connection id, its paths (names), whether any works, and its own
    /// paths to the router (`remotePaths`, from its sender stats; `null` until it says).
    static func json(_ participant: RemoteParticipant) -> JSONValue {
        .object([
            StatsField("connectionId", .string(participant.connectionId)),
            StatsField("paths", .array(participant.paths.names.map(JSONValue.string))),
            StatsField("isOnline", .bool(participant.paths.isOnline)),
            StatsField("remotePaths", participant.remotePaths.map { .array($0.names.map(JSONValue.string)) } ?? .null),
        ])
    }
}
