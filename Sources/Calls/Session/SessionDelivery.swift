import CallScopeCore
import Foundation
import Observability

/// How a session's events reach the app: the roster's events expanded with each participant's
/// (``ParticipantBook``), then the delegate, then every ``CallSession/events`` stream, in order;
/// and the stats recorder.
struct SessionDelivery: Sendable {
    var delegate = WeakSessionDelegate(nil)
    /// Told of every input of the stats monitors, before the monitor gets it.
    var statsRecorder: (@Sendable (CallStatsRecord) -> Void)?
    /// The other participants, their paths and quality.
    var participants = ParticipantBook()

    /// Delivers `roomEvents` (and the participants' events they imply) for `session`, to its
    /// delegate, then to its streams' `fanOut`.
    mutating func deliver(_ roomEvents: [CallSessionEvent], for session: CallSession, to fanOut: EventFanOut<CallSessionEvent>) {
        let events = participants.expand(roomEvents, session: session)
        guard !events.isEmpty else { return }
        if let delegate = delegate.object {
            for event in events { Self.call(delegate, with: event, for: session) }
        }
        fanOut.yield(events)
    }

    private static func call(_ delegate: any CallSessionDelegate, with event: CallSessionEvent, for session: CallSession) {
        switch event {
        case .didConnect: delegate.sessionDidConnect(session)
        case .streamCreated(let stream): delegate.session(session, streamCreated: stream)
        case .streamDestroyed(let stream, let reason): delegate.session(session, streamDestroyed: stream, reason: reason)
        case .connectionCreated(let connection): delegate.session(session, connectionCreated: connection)
        case .connectionDestroyed(let connection): delegate.session(session, connectionDestroyed: connection)
        case .didDisconnect: delegate.sessionDidDisconnect(session)
        case .didFail(let error): delegate.session(session, didFailWithError: error)
        case .participantDidConnect(let participant): delegate.session(session, participantDidConnect: participant)
        case .participantDidDisconnect(let participant): delegate.session(session, participantDidDisconnect: participant)
        case .participantPathsChanged(let participant): delegate.session(session, didUpdatePaths: participant)
        case .participantConnectionQualityChanged(let participant): delegate.session(session, didUpdateConnectionQuality: participant)
        case .connectionStateChanged(let state): delegate.session(session, didUpdateConnectionState: state)
        case .streamVideoDimensionsChanged(let stream): delegate.session(session, streamVideoDimensionsChanged: stream)
        case .streamPropertiesChanged(let stream): delegate.session(session, streamPropertiesChanged: stream)
        }
    }
}

/// The room we are in, while connected: our own connection, who else is there and what they
/// publish, and where our candidates go.
struct JoinedRoom: Sendable {
    var own: CallConnection
    var roster: RoomRoster
    var trickle = TrickleRouter()
}

/// What a session is given: the router, the media engine, the clocks and its configuration.
struct SessionDependencies: Sendable {
    let signaling: any Signaling
    let engine: any MediaEngine
    let timer: CallTimer
    let wallClock: @Sendable () -> Date
    let configuration: CallSessionConfiguration
    let discoverability: SessionDiscoverability?
}
