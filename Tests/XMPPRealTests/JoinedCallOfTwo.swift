import Calls
import CallsJingle
import Foundation
import Testing
import XMPP
import XMPPClient

/// Alice's and Bob's call of two over `JingleCallSignaling` (Alice calls, Bob answers), joined,
/// for the real tests that then drive it themselves (fallback, reconnection, replacement).
struct JoinedCallOfTwo {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)

    /// Each client's events from before it connected.
    let aliceLog: EventLog, bobLog: EventLog
    let aliceSignaling: JingleCallSignaling, bobSignaling: JingleCallSignaling
    let aliceSession: CallSession, bobSession: CallSession
    /// Each session's events from before it connected.
    let aliceEvents: TimedRecorder<CallSessionEvent>, bobEvents: TimedRecorder<CallSessionEvent>
    let aliceID: String, bobID: String
    /// When the sessions began to connect.
    let origin: ContinuousClock.Instant

    /// Connects both clients, makes them friends (``becomeFriends(_:_:)``), then joins a
    /// session each, both at once.
    static func join(alice: XMPPClient, bob: XMPPClient, aliceEngine: any MediaEngine, bobEngine: any MediaEngine) async throws -> JoinedCallOfTwo {
        let (aliceLog, bobLog) = try await connectAsFriends(alice, Self.alice, bob, Self.bob)

        let aliceSignaling = JingleCallSignaling(client: alice, friend: Self.bob, role: .caller)
        let bobSignaling = JingleCallSignaling(client: bob, friend: Self.alice, role: .callee)
        let aliceSession = CallSession(signaling: aliceSignaling, engine: aliceEngine, clock: ContinuousClock(), wallClock: Date.init)
        let bobSession = CallSession(signaling: bobSignaling, engine: bobEngine, clock: ContinuousClock(), wallClock: Date.init)
        let aliceEvents = TimedRecorder(aliceSession.events), bobEvents = TimedRecorder(bobSession.events)
        let origin = ContinuousClock.now
        async let aliceJoined: Void = aliceSession.connect(display: "alice")
        async let bobJoined: Void = bobSession.connect(display: "bob")
        _ = try await (aliceJoined, bobJoined)
        return JoinedCallOfTwo(aliceLog: aliceLog, bobLog: bobLog, aliceSignaling: aliceSignaling, bobSignaling: bobSignaling,
                               aliceSession: aliceSession, bobSession: bobSession, aliceEvents: aliceEvents, bobEvents: bobEvents,
                               aliceID: try #require(await aliceSession.connection?.connectionId),
                               bobID: try #require(await bobSession.connection?.connectionId), origin: origin)
    }
}
