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
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)
    /// Bob's second subnet: 10.201.7.2 inside, 10.201.7.1 on the root side (given beforehand, so
    /// that the change touches only Bob's namespace).
    static let movedRoot = "10.201.7.1", movedInner = "10.201.7.2"

    func log(_ line: String) { print("relayed-reconnect: \(line)") }

    private func client(_ servers: ProsodyServers, _ user: String) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: JID(local: user, domain: ProsodyServers.domain), password: "\(user)-pw", webSocketURL: servers.webSocketURL),
                   configuration: XMPPClientConfiguration(pingInterval: .seconds(5), reconnectionDelays: [.milliseconds(100), .milliseconds(500)]))
    }

    @Test(.timeLimit(.minutes(2)))
    func aCallSurvivesBobsAddressChange() async throws {
        let namespace = try FriendsNamespace.create()
        try FriendsNamespace.run(["/usr/sbin/ip", "addr", "add", Self.movedRoot + "/24", "dev", FriendsNamespace.rootInterface])
        let work = NSTemporaryDirectory() + "callscope-relayed-reconnect-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        do {
            servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"], turnAddress: FriendsNamespace.rootAddress)
            engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions(fakeCameraFrameRate: 15)))
            engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions(chromiumPath: try namespace.chromiumWrapper(in: work), fakeCameraFrameRate: 15,
                                                                                extraArguments: ["--remote-debugging-pipe"])))
            try await scenario(try #require(servers), namespace: namespace, aliceEngine: NotedMediaEngine(engines[0]), bobEngine: NotedMediaEngine(engines[1]))
        } catch {
            Issue.record("relayed-reconnect: \(error)")
        }
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
        _ = try? FriendsNamespace.run(["/usr/sbin/ip", "addr", "del", Self.movedRoot + "/24", "dev", FriendsNamespace.rootInterface])
        FriendsNamespace.remove()
        try? FileManager.default.removeItem(atPath: work)
    }

    private func scenario(_ servers: ProsodyServers, namespace: FriendsNamespace, aliceEngine: NotedMediaEngine, bobEngine: NotedMediaEngine) async throws {
        let alice = client(servers, "alice"), bob = client(servers, "bob")
        let aliceLog = EventLog.recording(alice), bobLog = EventLog.recording(bob)
        try await alice.connect()
        try await bob.connect()
        try await alice.addFriend(Self.bob)
        _ = await bobLog.first(within: .seconds(5)) { $0 == .roster(.subscriptionRequest(from: Self.alice)) }
        try await bob.approveFriendRequest(from: Self.alice)
        let mutual = await aliceLog.first(within: .seconds(5)) { event in
            if case .roster(.friendChanged(let friend)) = event { friend.jid == Self.bob && friend.availability != .offline }
            else if case .roster(.friendAdded(let friend)) = event { friend.jid == Self.bob && friend.availability != .offline } else { false }
        }
        try #require(mutual != nil, "alice and bob became friends")

        let aliceSignaling = JingleCallSignaling(client: alice, friend: Self.bob, role: .caller)
        let bobSignaling = JingleCallSignaling(client: bob, friend: Self.alice, role: .callee)
        let aliceSession = CallSession(signaling: aliceSignaling, engine: aliceEngine, clock: ContinuousClock(), wallClock: Date.init)
        let bobSession = CallSession(signaling: bobSignaling, engine: bobEngine, clock: ContinuousClock(), wallClock: Date.init)
        let aliceEvents = TimedRecorder(aliceSession.events), bobEvents = TimedRecorder(bobSession.events)
        let origin = ContinuousClock.now
        async let aliceJoined: Void = aliceSession.connect(display: "alice")
        async let bobJoined: Void = bobSession.connect(display: "bob")
        _ = try await (aliceJoined, bobJoined)
        let aliceID = try #require(await aliceSession.connection?.connectionId)
        let bobID = try #require(await bobSession.connection?.connectionId)

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

/// Every element of an async sequence with when it came.
final class TimedRecorder<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, event: Element)] = []
    private var task: Task<Void, Never>?

    init(_ sequence: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in sequence { self?.append(element) }
        }
    }

    deinit { task?.cancel() }

    private func append(_ element: Element) { lock.withLock { stored.append((.now, element)) } }

    var entries: [(at: ContinuousClock.Instant, event: Element)] { lock.withLock { stored } }

    /// The first element at or after `start` matching `predicate`, waiting up to `timeout`.
    func first(after start: ContinuousClock.Instant, within timeout: Duration,
               _ predicate: (Element) -> Bool) async -> (at: ContinuousClock.Instant, event: Element)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = entries.first(where: { $0.at >= start && predicate($0.event) }) { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// "+1.23 s event" lines from `start` on.
    func timeline(from start: ContinuousClock.Instant) -> [String] {
        entries.filter { $0.at >= start }.map { String(format: "+%.2f s ", RealRelayedReconnectTests.seconds($0.at - start)) + "\($0.event)" }
    }
}

/// A subscriber's received video bytes (its `inbound-rtp` of kind video), read from the
/// engine every 200 ms: finer than the SDK's 1 s samples, for the time media is back.
final class VideoBytes: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, bytes: UInt64)] = []
    private var task: Task<Void, Never>?

    /// Polls the first peer connection `engine` answered on (the subscriber's).
    init(_ engine: NotedMediaEngine) {
        task = Task { [weak self] in
            while !Task.isCancelled {
                if let pc = engine.answeringPeerConnections.first, let report = try? await engine.stats(of: pc) {
                    let video = report.entries(ofType: .inboundRTP).filter { $0.kind == "video" }
                    if !video.isEmpty { self?.append(UInt64(video.reduce(0) { $0 + ($1.bytesReceived ?? 0) })) }
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    deinit { task?.cancel() }

    private func append(_ bytes: UInt64) { lock.withLock { stored.append((.now, bytes)) } }

    var samples: [(at: ContinuousClock.Instant, bytes: UInt64)] { lock.withLock { stored } }

    /// "+t bytes" from `start` on.
    func samples(from start: ContinuousClock.Instant) -> [String] {
        samples.filter { $0.at >= start }.prefix(40).map { String(format: "+%.1f %llu", RealRelayedReconnectTests.seconds($0.at - start), $0.bytes) }
    }

    /// When a sample after `start` first counted more bytes than the sample before it.
    func growing(after start: ContinuousClock.Instant, within timeout: Duration) async -> ContinuousClock.Instant? {
        await first(within: timeout) { previous, sample in sample.at > start && previous.at >= start && sample.bytes > previous.bytes }
    }

    /// The first interruption after `start`: the last sample before it and the first sample
    /// that counted bytes again. An interruption is a sample with no more bytes than the one
    /// before (200 ms without video at 15 fps) or no sample for over 600 ms (the engine lists
    /// no video stream: Chromium drops it during the restart and starts a new one, whose
    /// counter starts at zero, so a lower value above zero counts as bytes again). `nil`:
    /// media never stopped.
    func interruption(after start: ContinuousClock.Instant) -> (lastBefore: ContinuousClock.Instant, back: ContinuousClock.Instant?)? {
        let all = samples
        guard let first = all.indices.dropFirst().first(where: { index in
            all[index].at > start && (all[index].bytes <= all[index - 1].bytes || all[index].at - all[index - 1].at > .milliseconds(600))
        }) else { return nil }
        let back = all.indices.dropFirst(first).first { index in
            all[index].bytes > all[index - 1].bytes || (all[index].bytes < all[index - 1].bytes && all[index].bytes > 0)
        }
        return (all[first - 1].at, back.map { all[$0].at })
    }

    private func first(within timeout: Duration,
                       _ predicate: ((at: ContinuousClock.Instant, bytes: UInt64), (at: ContinuousClock.Instant, bytes: UInt64)) -> Bool) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let all = samples
            if all.count >= 2, let index = all.indices.dropFirst().first(where: { predicate(all[$0 - 1], all[$0]) }) { return all[index].at }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A media engine that passes everything to another and notes, with when, the calls of a
/// renegotiation (offers, descriptions, remote candidates) and any call that took over 250 ms:
/// what the test prints after the change.
final class NotedMediaEngine: MediaEngine, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let engine: any MediaEngine
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, line: String)] = []
    private var answering: [PeerConnectionID] = []
    var events: AsyncStream<MediaEngineEvent> { engine.events }

    init(_ engine: any MediaEngine) { self.engine = engine }

    /// "+1.23 s line" from `start` on.
    func notes(from start: ContinuousClock.Instant) -> [String] {
        lock.withLock { stored }.filter { $0.at >= start }.map { String(format: "+%.2f s ", RealRelayedReconnectTests.seconds($0.at - start)) + $0.line }
    }

    private func timed<T>(_ name: String, always: Bool = false, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - start
            if always || took > .milliseconds(250) {
                lock.withLock { stored.append((start, name + String(format: " (%.0f ms)", RealRelayedReconnectTests.seconds(took) * 1000))) }
            }
        }
        return try await body()
    }

    func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        try await timed("make") { try await engine.makePeerConnection(configuration) }
    }
    func closePeerConnection(_ id: PeerConnectionID) async throws { try await timed("close \(id)", always: true) { try await engine.closePeerConnection(id) } }
    func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws { try await engine.addLocalMedia(settings, to: id) }
    func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        try await timed("createOffer \(id) restart \(iceRestart)", always: true) { try await engine.createOffer(on: id, iceRestart: iceRestart) }
    }
    func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await timed("setLocal \(id) \(description.kind)", always: true) { try await engine.setLocalDescription(description, on: id) }
    }
    func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        lock.withLock { if !answering.contains(id) { answering.append(id) } }
        return try await timed("createAnswer \(id)", always: true) { try await engine.createAnswer(on: id) }
    }

    /// The peer connections answered on, first first (a subscriber's).
    var answeringPeerConnections: [PeerConnectionID] { lock.withLock { answering } }
    func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await timed("setRemote \(id) \(description.kind)", always: true) { try await engine.setRemoteDescription(description, on: id) }
    }
    func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        let address = candidate.map { $0.candidate.split(separator: " ").dropFirst(4).prefix(2).joined(separator: ":") } ?? "end"
        do {
            try await timed("addCandidate \(id) \(address)", always: true) { try await engine.addRemoteCandidate(candidate, on: id) }
        } catch {
            lock.withLock { stored.append((.now, "addCandidate \(id) \(address) refused")) }
            throw error
        }
    }
    func openDataChannel(label: String, on id: PeerConnectionID) async throws { try await engine.openDataChannel(label: label, on: id) }
    func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        try await timed("send \(id)") { try await engine.sendData(text, label: label, on: id) }
    }
    func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        try await engine.setTracksEnabled(kind, enabled, on: id)
    }
    func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws { try await engine.setVideoFrameSink(sink, on: id) }
    func stats(of id: PeerConnectionID) async throws -> StatsReport { try await timed("stats \(id)") { try await engine.stats(of: id) } }
    func shutdown() async { await engine.shutdown() }
}
