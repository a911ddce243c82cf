import Calls
import CallsChromium
import CallsJingle
import Foundation
import Observability
import RTCStats
import Testing
import XMPP
import XMPPClient

/// Issue 24's audio fallback in a relayed call of two, on real components: Alice publishes,
/// Bob (his Chromium in `csrig-friends`) subscribes; Bob's downlink is capped with `tc tbf` at
/// 64 kbit/s, below what Alice's audio and the least video her Chromium sends need together, so
/// Bob's layer policy falls back to audio, its `configure(send: false)` crosses Prosody as a
/// `content-modify`, and Alice's publisher turns its video track off on that connection (her
/// outbound video bytes almost stop); the cap lifted, Bob's policy probes back, says
/// `videoEnabled`, and Alice's video bytes grow again. Then Alice's camera stops for real on the
/// clean link (``CameraStopper``) and Bob reads it as hers: `videoDisabled(publisherPropertyChanged)`,
/// no fallback.
///
/// Why 64 kbit/s and not the mesh test's 150 kbit/s: with no router between them, Alice's
/// congestion control sees Bob's feedback and lowers her video to the cap within a second or
/// two; once it has, the link loses nothing and nothing says "nothing fits". Under 64 kbit/s it
/// cannot: Alice's audio alone takes ~60 kbit/s on the wire (Opus ~32 kbit/s plus 50 packets/s ×
/// ~70 bytes of headers), her video sender sends at least libwebrtc's floor (30 kbit/s), and the
/// tbf queue, a few packets long, drops every video packet while most of the audio gets
/// through: the starved video the subscriber must not read as a stopped camera
/// (docs/network-condition.md). `CALLSCOPE_FALLBACK_CAP` sets another cap (`80kbit`: a few
/// video packets still cross, lost mostly).
///
/// While Bob is paused, Alice's video track must be off (read in her page): her outbound video
/// then is the disabled track's black frames, measured 0-27 kbit/s (retransmissions left out,
/// ``OutboundVideoBytes``), too close to libwebrtc's 30 kbit/s floor for camera video to tell
/// them apart by rate, so the rate is logged, not asserted.
///
/// Each engine's per-second facts (``RelayedLinkFacts``) and Bob's downlink are printed around
/// the cap and the camera stop. Gated by CALLSCOPE_REAL=1 and CALLSCOPE_REAL_NETNS=1; its own
/// step in Scripts/test.sh.
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed))
struct RealRelayedFallbackTests {
    static let cap = ProcessInfo.processInfo.environment["CALLSCOPE_FALLBACK_CAP"] ?? "64kbit"
    /// Alice's camera video, at least (bit/s): 220-265 kbit/s before the cap, 46-85 kbit/s within
    /// 10 s of its end while her congestion control ramps up; her disabled track's black frames
    /// measured 0-27 kbit/s.
    static let videoBound = 40_000.0

    func log(_ line: String) { print("relayed-fallback: \(line)") }

    private func client(_ servers: ProsodyServers, _ user: String) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: JID(local: user, domain: ProsodyServers.domain), password: "\(user)-pw", webSocketURL: servers.webSocketURL),
                   configuration: XMPPClientConfiguration(pingInterval: .seconds(5)))
    }

    @Test(.timeLimit(.minutes(2)))
    func bobsFallbackStopsAlicesVideoOnHisConnectionAndItComesBack() async throws {
        let namespace = try FriendsNamespace.create()
        let work = NSTemporaryDirectory() + "callscope-relayed-fallback-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        do {
            servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"], turnAddress: FriendsNamespace.rootAddress)
            let aliceWork = work + "/alice"
            engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions(fakeCameraFrameRate: 15, workDirectory: aliceWork)))
            let camera = try #require(CameraStopper(workDirectory: aliceWork), "alice's chromedriver log names its port and session")
            engines.append(try await ChromiumMediaEngine.launch(ChromiumOptions(chromiumPath: try namespace.chromiumWrapper(in: work), fakeCameraFrameRate: 15,
                                                                                extraArguments: ["--remote-debugging-pipe"])))
            try await scenario(try #require(servers), aliceEngine: engines[0], aliceCamera: camera, bobEngine: NotedMediaEngine(engines[1]))
        } catch {
            Issue.record("relayed-fallback: \(error)")
        }
        _ = try? FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "del", "dev", FriendsNamespace.rootInterface, "root"])
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
        FriendsNamespace.remove()
        try? FileManager.default.removeItem(atPath: work)
    }

    private func scenario(_ servers: ProsodyServers, aliceEngine: ChromiumMediaEngine, aliceCamera: CameraStopper, bobEngine: NotedMediaEngine) async throws {
        let alice = client(servers, "alice"), bob = client(servers, "bob")
        let call = try await JoinedCallOfTwo.join(alice: alice, bob: bob, aliceEngine: aliceEngine, bobEngine: bobEngine)
        let (aliceSignaling, aliceSession, bobSession) = (call.aliceSignaling, call.aliceSession, call.bobSession)
        let (bobEvents, aliceID, origin) = (call.bobEvents, call.aliceID, call.origin)

        // Alice publishes, Bob subscribes (one direction: the other is not under test).
        let alicePublisher = CallPublisher()
        try await aliceCamera.watchTracks()
        let alicePublishing = Task { try await aliceSession.publish(alicePublisher) }
        let created = await bobEvents.first(after: origin, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
        guard case .streamCreated(let aliceStream)? = created?.event else {
            Issue.record("bob got alice's stream: \(bobEvents.timeline(from: origin))")
            return
        }
        let bobSubscriber = CallSubscriber(stream: aliceStream)
        let bobLifecycle = TimedRecorder(bobSubscriber.events)
        let bobStats = TimedRecorder(bobSubscriber.statsMonitor.events)
        let aliceSent = OutboundVideoBytes(aliceEngine)
        let facts = RelayedLinkFacts(subscriber: bobEngine, publisher: aliceEngine, publication: PeerConnectionID("pc-1"))
        defer { facts.stop() }
        try await bobSession.subscribe(bobSubscriber)
        try await alicePublishing.value
        let flowing = await aliceSent.rate(after: origin, within: .seconds(20)) { $0 > Self.videoBound }
        try #require(flowing != nil, "alice sends video before the cap: \(aliceSent.rates(from: origin))")
        try await Task.sleep(for: .seconds(3))
        log("before the cap: alice's video \(aliceSent.rates(from: ContinuousClock.now - .seconds(3)))")

        // 1. The cap: Bob's policy falls back (videoDisabled), Alice's video on his connection stops.
        let capped = ContinuousClock.now
        try FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "add", "dev", FriendsNamespace.rootInterface, "root", "tbf", "rate", Self.cap, "burst", "16kbit", "latency", "100ms"])
        let disabled = await bobLifecycle.first(after: capped, within: .seconds(20)) { $0 == .videoDisabled(.qualityChanged) }
        let warned = bobLifecycle.entries.first { $0.at > capped && $0.event == .videoDisableWarning }
        log("cap \(Self.cap): warning \(seconds(warned?.at, from: capped)), videoDisabled \(seconds(disabled?.at, from: capped))")
        for line in facts.lines(from: capped - Duration.seconds(3), span: .seconds(24)) { log("facts \(line)") }
        #expect(disabled != nil, "bob's policy fell back to audio: \(bobLifecycle.timeline(from: capped))")
        if disabled != nil {
            try await pausedAndBack(capped: capped, aliceSignaling: aliceSignaling, aliceCamera: aliceCamera, aliceSent: aliceSent, bobLifecycle: bobLifecycle)
        } else {
            try FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "del", "dev", FriendsNamespace.rootInterface, "root"])
            try await Task.sleep(for: .seconds(10))
        }

        log("bob's subscriber until the camera stops: \(bobLifecycle.timeline(from: capped))")
        for line in Self.conditions(bobStats, from: capped) { log("bob's downlink \(line)") }

        // 3. Alice's camera stops on a clean link: Bob reads it as her doing
        // (videoDisabled(publisherPropertyChanged)), no warning, no fallback, nothing asked of her.
        try await Task.sleep(for: .seconds(2))
        let stopped = ContinuousClock.now
        let stoppedTracks = try await aliceCamera.stopVideo()
        let publisherOff = await bobLifecycle.first(after: stopped, within: .seconds(10)) { $0 == .videoDisabled(.publisherPropertyChanged) }
        try await Task.sleep(for: .seconds(2))
        log("camera stopped (\(stoppedTracks) track): videoDisabled(publisherPropertyChanged) \(seconds(publisherOff?.at, from: stopped)); "
            + "bob's subscriber \(bobLifecycle.timeline(from: stopped))")
        for line in facts.lines(from: stopped - Duration.seconds(2), span: .seconds(8)) { log("facts stop \(line)") }
        #expect(stoppedTracks == 1, "alice's one video track stopped")
        #expect(publisherOff != nil, "bob says alice stopped her video: \(bobLifecycle.timeline(from: stopped))")
        #expect(!bobLifecycle.entries.contains { $0.at >= stopped && ($0.event == .videoDisableWarning || $0.event == .videoDisabled(.qualityChanged)) },
                "no fallback for a stopped camera: \(bobLifecycle.timeline(from: stopped))")
        #expect(await aliceSignaling.publicationSubscriberWantsVideo(), "bob asked alice for nothing")

        await bobSession.disconnect()
        await aliceSession.disconnect()
        await alice.disconnect()
        await bob.disconnect()
    }

    /// Alice's video while Bob's fallback holds, then the cap lifted and the video back.
    private func pausedAndBack(capped: ContinuousClock.Instant, aliceSignaling: JingleCallSignaling, aliceCamera: CameraStopper, aliceSent: OutboundVideoBytes,
                               bobLifecycle: TimedRecorder<CallSubscriberEvent>) async throws {
        // Alice's video track while her signalling says Bob wants none, from 1.5 s after it said
        // so (her next stats sample switches the track), and what she sends over 2 s; again at
        // Bob's next pause when a probe (5-8 s later) cut the window short.
        var pausedRate: Double?
        var trackOff = false
        for _ in 0..<4 where pausedRate == nil {
            guard await until(.seconds(15), { await !aliceSignaling.publicationSubscriberWantsVideo() }) else { break }
            let asked = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(1500))
            let start = aliceSent.latest
            let enabled = try await aliceCamera.enabledVideoTracks()
            var held = true
            for _ in 0..<10 {
                try await Task.sleep(for: .milliseconds(200))
                if await aliceSignaling.publicationSubscriberWantsVideo() { held = false }
            }
            let end = aliceSent.latest
            log("paused window from \(seconds(asked, from: capped)): held \(held), enabled video tracks \(enabled), "
                + "\(start.map { "\($0.bytes)" } ?? "-") → \(end.map { "\($0.bytes)" } ?? "-") bytes")
            if held, let start, let end, end.at > start.at {
                trackOff = enabled == 0
                pausedRate = Double(end.bytes - min(start.bytes, end.bytes)) * 8 / RealRelayedReconnectTests.seconds(end.at - start.at)
            } else {
                try await Task.sleep(for: .seconds(1))
            }
        }
        log("alice's video while bob is paused: \(pausedRate.map { String(format: "%.0f bit/s", $0) } ?? "not measured"); samples \(aliceSent.rates(from: capped))")
        _ = try #require(pausedRate, "a 2 s window with bob's fallback holding at alice")
        #expect(trackOff, "alice's video track is off on bob's connection while he is paused")

        // 2. The cap lifted: Bob's probe succeeds, videoEnabled; Alice's video grows again.
        let lifted = ContinuousClock.now
        try FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "del", "dev", FriendsNamespace.rootInterface, "root"])
        let enabled = await bobLifecycle.first(after: lifted, within: .seconds(25)) { $0 == .videoEnabled(.qualityChanged) }
        let back = await aliceSent.rate(after: lifted, within: .seconds(25)) { $0 > Self.videoBound }
        log("lifted after \(seconds(lifted, from: capped)): videoEnabled \(seconds(enabled?.at, from: lifted)), alice's video above the bound \(seconds(back, from: lifted)); "
            + "samples \(aliceSent.rates(from: lifted))")
        log("bob's subscriber \(bobLifecycle.timeline(from: capped))")
        #expect(enabled != nil, "bob's video comes back: \(bobLifecycle.timeline(from: lifted))")
        #expect(back != nil, "alice's video to bob grows again: \(aliceSent.rates(from: lifted))")
        #expect(try await aliceCamera.enabledVideoTracks() == 1, "alice's video track is on again")
        #expect(await aliceSignaling.publicationSubscriberWantsVideo(), "bob wants video again")
    }

    /// Bob's subscriber's downlink each second: "+t condition/reason video received/lost".
    private static func conditions(_ stats: TimedRecorder<StatsCallback>, from start: ContinuousClock.Instant) -> [String] {
        var lines: [String] = []
        var lastVideo: (UInt64, UInt64)?
        for entry in stats.entries where entry.at >= start {
            switch entry.event.event {
            case .subscriberMediaLinkStatsUpdated(let link):
                lines.append(String(format: "+%.1f ", RealRelayedReconnectTests.seconds(entry.at - start))
                             + "\(link.transport.networkCondition)/\(link.transport.networkConditionReason) source \(link.networkDegradationSource)")
            case .subscriberVideoNetworkStatsUpdated(let video):
                let now = (video.videoPacketsReceived, video.videoPacketsLost)
                if let last = lastVideo, !lines.isEmpty { lines[lines.count - 1] += " video +\(now.0 &- last.0)/lost +\(now.1 &- last.1)" }
                lastVideo = now
            default: break
            }
        }
        return lines
    }

    private func until(_ timeout: Duration, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    private func seconds(_ instant: ContinuousClock.Instant?, from start: ContinuousClock.Instant) -> String {
        instant.map { String(format: "%.2f s", RealRelayedReconnectTests.seconds($0 - start)) } ?? "never"
    }
}

/// A publisher's sent video bytes (its `outbound-rtp` of kind video, all layers, less the
/// retransmitted ones) on the one peer connection of `engine` that sends video, read every 200 ms.
final class OutboundVideoBytes: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, bytes: UInt64)] = []
    private var task: Task<Void, Never>?

    init(_ engine: ChromiumMediaEngine) {
        task = Task { [weak self] in
            while !Task.isCancelled {
                // Alice's only peer connection is her publication's (she subscribes to nothing).
                if let report = try? await engine.stats(of: PeerConnectionID("pc-1")) {
                    let video = report.entries(ofType: .outboundRTP).filter { $0.kind == "video" }
                    // Retransmissions left out: they are the cap's backlog (packets lost before
                    // the pause that Bob still asks for), not video Alice encodes for him.
                    let fresh = video.reduce(0) { $0 + max(0, ($1.bytesSent ?? 0) - ($1.number("retransmittedBytesSent") ?? 0)) }
                    if !video.isEmpty { self?.append(UInt64(fresh)) }
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    deinit { task?.cancel() }

    private func append(_ bytes: UInt64) { lock.withLock { stored.append((.now, bytes)) } }

    var latest: (at: ContinuousClock.Instant, bytes: UInt64)? { lock.withLock { stored.last } }

    /// bit/s over each second (5 samples apart) from `start` on, "+t rate".
    func rates(from start: ContinuousClock.Instant) -> [String] {
        let all = lock.withLock { stored }.filter { $0.at >= start }
        return stride(from: 5, to: all.count, by: 5).prefix(30).map { index in
            let (a, b) = (all[index - 5], all[index])
            let rate = Double(b.bytes - min(a.bytes, b.bytes)) * 8 / RealRelayedReconnectTests.seconds(b.at - a.at)
            return String(format: "+%.1f %.0f", RealRelayedReconnectTests.seconds(b.at - start), rate)
        }
    }

    /// When the rate over one second (5 samples) after `start` first met `condition`.
    func rate(after start: ContinuousClock.Instant, within timeout: Duration, _ condition: (Double) -> Bool) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let all = lock.withLock { stored }.filter { $0.at > start }
            for index in all.indices.dropFirst(5) {
                let (a, b) = (all[index - 5], all[index])
                if b.at > a.at, condition(Double(b.bytes - min(a.bytes, b.bytes)) * 8 / RealRelayedReconnectTests.seconds(b.at - a.at)) { return b.at }
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
