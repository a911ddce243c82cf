import Calls
import CallsChromium
import CallsJingle
import Foundation
import Observability
import RTCStats
import Testing
import XMPP
import XMPPClient

/// Issue 24's network change mid-call on real components: a relayed call of two friends
/// (Prosody and coturn outside, Alice and her Chromium in the root namespace, Bob's Chromium in
/// `csrig-friends`), media both ways; then Bob's namespace moves to another subnet (its address
/// removed, another added, the default route through it) and his XMPP stream is cut at that
/// moment, as a phone's TCP connection dies with its network. Bob's stream resumes (XEP-0198);
/// the call reconnects by ICE restarts over Jingle (the machines see the media stop; a
/// subscriber asks its publisher with `<restart-ice/>`, the publisher offers new credentials in
/// a `transport-info`), media flows again both ways, and neither side sees
/// `participantDidDisconnect` or `streamDestroyed`. The time from the change to media again is
/// measured and logged, not asserted (only that it comes back within a generous bound).
/// Gated by CALLSCOPE_REAL=1 and CALLSCOPE_REAL_NETNS=1 (Scripts/test.sh, under the rig lock).
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed))
struct RealRelayedReconnectTests {
    /// Bob's second subnet: 10.201.7.2 inside, 10.201.7.1 on the root side (given beforehand, so
    /// that the change touches only Bob's namespace).
    static let movedRoot = "10.201.7.1", movedInner = "10.201.7.2"

    func log(_ line: String) { print("relayed-reconnect: \(line)") }

    @Test(.timeLimit(.minutes(2)))
    func aCallSurvivesBobsAddressChange() async throws {
        let namespace = try FriendsNamespace.create()
        try FriendsNamespace.run(["/usr/sbin/ip", "addr", "add", Self.movedRoot + "/24", "dev", FriendsNamespace.rootInterface])
        await namespace.withAliceAndBob(label: "relayed-reconnect", fakeCameraFrameRate: 15) { servers, alice, bob in
            try await scenario(servers, namespace: namespace, aliceEngine: NotedMediaEngine(alice), bobEngine: NotedMediaEngine(bob))
        }
        _ = try? FriendsNamespace.run(["/usr/sbin/ip", "addr", "del", Self.movedRoot + "/24", "dev", FriendsNamespace.rootInterface])
        FriendsNamespace.remove()
    }

    private func scenario(_ servers: ProsodyServers, namespace: FriendsNamespace, aliceEngine: NotedMediaEngine, bobEngine: NotedMediaEngine) async throws {
        let alice = servers.client("alice"), bob = servers.client("bob")
        let call = try await JoinedCallOfTwo.join(alice: alice, bob: bob, aliceEngine: aliceEngine, bobEngine: bobEngine)
        let (bobLog, aliceSignaling, bobSignaling) = (call.bobLog, call.aliceSignaling, call.bobSignaling)
        let (aliceSession, bobSession, aliceEvents, bobEvents) = (call.aliceSession, call.bobSession, call.aliceEvents, call.bobEvents)
        let (aliceID, bobID, origin) = (call.aliceID, call.bobID, call.origin)

        let alicePublisher = CallPublisher(), bobPublisher = CallPublisher()
        let alicePublisherEvents = TimedRecorder(alicePublisher.events), bobPublisherEvents = TimedRecorder(bobPublisher.events)
        let alicePublishing = Task { try await aliceSession.publish(alicePublisher) }
        let bobPublishing = Task { try await bobSession.publish(bobPublisher) }
        let aliceStreamAtBob = await bobEvents.first(after: origin, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
        let bobStreamAtAlice = await aliceEvents.first(after: origin, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == bobID } else { false } }
        guard case .streamCreated(let aliceStream)? = aliceStreamAtBob?.event, case .streamCreated(let bobStream)? = bobStreamAtAlice?.event else {
            Issue.record("streams created: alice \(aliceEvents.timeline(from: origin)), bob \(bobEvents.timeline(from: origin))")
            return
        }
        let bobSubscriber = CallSubscriber(stream: aliceStream), aliceSubscriber = CallSubscriber(stream: bobStream)
        let bobLifecycle = TimedRecorder(bobSubscriber.events), aliceLifecycle = TimedRecorder(aliceSubscriber.events)
        let bobVideo = VideoBytes(bobEngine), aliceVideo = VideoBytes(aliceEngine)
        let subscribing = ContinuousClock.now
        try await bobSession.subscribe(bobSubscriber)
        try await aliceSession.subscribe(aliceSubscriber)
        try await alicePublishing.value
        try await bobPublishing.value
        let bobConnected = await bobLifecycle.first(after: origin, within: .seconds(20)) { $0 == .didConnect(aliceStream) }
        let aliceConnected = await aliceLifecycle.first(after: origin, within: .seconds(20)) { $0 == .didConnect(bobStream) }
        log("setup: subscribed to didConnect bob \(seconds(bobConnected?.at, from: subscribing)), alice \(seconds(aliceConnected?.at, from: subscribing))")

        // 1. Media both ways before the change.
        let bobFlowing = await bobVideo.growing(after: origin, within: .seconds(15))
        let aliceFlowing = await aliceVideo.growing(after: origin, within: .seconds(15))
        try #require(bobFlowing != nil && aliceFlowing != nil, "media both ways before the change: bob \(bobVideo.samples.suffix(4)), alice \(aliceVideo.samples.suffix(4))")
        try await Task.sleep(for: .seconds(1))

        // 2. The network change: Bob's address moves to the other subnet, his stream is cut.
        let bobLogMark = await bobLog.count
        let change = ContinuousClock.now
        let ip = "/usr/sbin/ip"
        try FriendsNamespace.run(FriendsNamespace.inside([ip, "addr", "del", FriendsNamespace.innerAddress + "/24", "dev", FriendsNamespace.innerInterface]))
        try FriendsNamespace.run(FriendsNamespace.inside([ip, "addr", "add", Self.movedInner + "/24", "dev", FriendsNamespace.innerInterface]))
        try FriendsNamespace.run(FriendsNamespace.inside([ip, "route", "replace", "default", "via", Self.movedRoot, "dev", FriendsNamespace.innerInterface]))
        await bob.dropConnection()
        let resumed = await bobLog.first(after: bobLogMark, within: .seconds(10)) { if case .connected = $0 { true } else { false } }
        let resumedFlag: Bool? = if case .connected(_, let flag)? = resumed?.event { flag } else { nil }

        // Media again: received video bytes grow on both sides after having stopped.
        // Media flowing at the end on both sides (received bytes grow from a sample taken 6 s
        // after the change on), and how long it was interrupted.
        let settled = change + .seconds(6)
        let bobBack = await bobVideo.growing(after: settled, within: .seconds(30))
        let aliceBack = await aliceVideo.growing(after: settled, within: .seconds(30))
        let bobGap = bobVideo.interruption(after: change), aliceGap = aliceVideo.interruption(after: change)
        func describe(_ gap: (lastBefore: ContinuousClock.Instant, back: ContinuousClock.Instant?)?) -> String {
            guard let gap else { return "never stopped" }
            return "last before the gap \(seconds(gap.lastBefore, from: change)), again \(seconds(gap.back, from: change))"
        }
        log("measured: bob's stream back \(seconds(resumed?.at, from: change)) (resumed: \(resumedFlag.map(String.init) ?? "-")); "
            + "bob's video \(describe(bobGap)); alice's video \(describe(aliceGap))")
        log("bob's subscriber \(bobLifecycle.timeline(from: change)); alice's subscriber \(aliceLifecycle.timeline(from: change))")
        log("alice's publisher \(alicePublisherEvents.timeline(from: change)); bob's publisher \(bobPublisherEvents.timeline(from: change))")
        log("bob's video bytes \(bobVideo.samples(from: change)); alice's \(aliceVideo.samples(from: change))")
        log("alice's engine \(aliceEngine.notes(from: change))")
        log("bob's engine \(bobEngine.notes(from: change))")

        let bobRecent = await bobLog.events.suffix(4)
        #expect(resumedFlag == true, "bob's stream resumed (XEP-0198): \(bobRecent)")
        #expect(bobBack != nil, "bob receives alice's video again: \(bobVideo.samples(from: change))")
        #expect(aliceBack != nil, "alice receives bob's video again: \(aliceVideo.samples(from: change))")
        for (name, events) in [("alice", aliceEvents), ("bob", bobEvents)] {
            let lost = events.entries.filter { entry in
                switch entry.event {
                case .participantDidDisconnect, .streamDestroyed: entry.at > change
                default: false
                }
            }
            #expect(lost.isEmpty, "\(name) lost nobody: \(events.timeline(from: change))")
        }
        for (name, signaling) in [("alice", aliceSignaling), ("bob", bobSignaling)] {
            log("\(name)'s signalling: unused remote candidates \(await signaling.unusedRemoteCandidates), ignored restart signals \(await signaling.ignoredRestartSignals), malformed \(await signaling.malformedInputs), restarts after the stream came back \(await signaling.restartsAfterStreamReturns)")
        }
        await bobSession.disconnect()
        await aliceSession.disconnect()
        await alice.disconnect()
        await bob.disconnect()
    }

    private func seconds(_ instant: ContinuousClock.Instant?, from start: ContinuousClock.Instant) -> String {
        instant.map { String(format: "%.2f s", Self.seconds($0 - start)) } ?? "never"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
