import Calls
import CallsChromium
import CallScopeCore
import CallsJanus
import ConnectivityProbe
import Foundation
import Observability
import Testing

/// The real tests' call, set up in one place: a Janus of our own, Alice publishing (15 fps,
/// the rig's three simulcast layers), Bob seeing her stream and, unless asked not to,
/// subscribed to it with `didConnect` and a few seconds of steady media. Either client's
/// Chromium may run in the `csrig-calls` network namespace (for blackouts at its end).
final class TwoClientCall: Sendable {
    /// Who runs in the namespace.
    enum Side: Sendable { case alice, bob }

    /// What the call starts with.
    struct Setup: Sendable {
        /// Whose Chromium runs in the namespace; `nil` for none (no namespace is created).
        var namespaced: Side?
        /// Bob joins before Alice publishes (her stream then arrives as a live `publishers` event).
        var bobJoinsFirst = false
        /// Bob subscribes to Alice's stream and waits for `didConnect`.
        var subscribe = true
        /// Steady media before `body` runs, after `didConnect`.
        var steady: Duration = .seconds(4)
        /// Alice's publisher.
        var publisher = CallPublisherSettings(name: "alice", media: TwoClientCall.media)
        /// A coturn of the call's own, on the namespace's root side (started before Janus):
        /// Bob's peer connections are configured by this, and his discoverability probes run
        /// inside the namespace against the same coturn. `nil`: no coturn, default settings.
        var bobRelay: (@Sendable (CoturnProcess) -> PeerConnectionConfiguration)?
        /// A Y4M clip as Alice's camera (`--use-file-for-fake-video-capture`), played at its
        /// own frame rate; `nil`: Chromium's test pattern.
        var aliceCameraFile: String?
    }

    let namespace: NetworkNamespace?
    /// The coturn of ``Setup/bobRelay``.
    let coturn: CoturnProcess?
    let alice: CallSession
    let bob: CallSession
    let publisher: CallPublisher
    let publisherEvents: Timed<CallPublisherEvent>
    let bobEvents: Timed<CallSessionEvent>
    /// Alice's stream as Bob first saw it.
    let stream: CallStream
    /// Bob's subscriber to `stream`, its events and its stats callbacks, from before it
    /// subscribed (with `Setup.subscribe`).
    let subscriber: CallSubscriber?
    let lifecycle: Timed<CallSubscriberEvent>?
    let subscriberStats: Timed<StatsCallback>?
    /// Alice's media engine, keeping a trace (printed when a timing misses).
    let aliceEngine: TracedMediaEngine
    /// Bob's Chromium, under its trace.
    let bobChromium: ChromiumMediaEngine
    private let janusProcess: Locked<JanusProcess>

    /// The Janus the call runs on now.
    var janus: JanusProcess { janusProcess.withLock { $0 } }
    /// Its API URL.
    var url: URL { janus.url }

    /// The publisher's settings every real test uses: the rig's layers at 15 fps.
    static let media = LocalMediaSettings(frameRate: 15)

    private init(namespace: NetworkNamespace?, coturn: CoturnProcess?, janus: JanusProcess, alice: CallSession, bob: CallSession, publisher: CallPublisher,
                 publisherEvents: Timed<CallPublisherEvent>, bobEvents: Timed<CallSessionEvent>, stream: CallStream,
                 subscriber: CallSubscriber?, lifecycle: Timed<CallSubscriberEvent>?, subscriberStats: Timed<StatsCallback>?,
                 aliceEngine: TracedMediaEngine, bobChromium: ChromiumMediaEngine) {
        self.namespace = namespace
        self.coturn = coturn
        janusProcess = Locked(janus)
        self.alice = alice
        self.bob = bob
        self.publisher = publisher
        self.publisherEvents = publisherEvents
        self.bobEvents = bobEvents
        self.stream = stream
        self.subscriber = subscriber
        self.lifecycle = lifecycle
        self.subscriberStats = subscriberStats
        self.aliceEngine = aliceEngine
        self.bobChromium = bobChromium
    }

    /// Kills Janus (SIGKILL, as a crash) and starts a new one on the same port.
    func restartJanus() async throws {
        let port = UInt16(url.port ?? 0)
        await janus.kill()
        try await Task.sleep(for: .seconds(2))
        let fresh = try await JanusProcess(port: port)
        janusProcess.withLock { $0 = fresh }
    }

    /// Sets the call up, runs `body`, and tears everything down whatever happened (a thrown
    /// error is recorded as an issue, with `scenario` in its text).
    static func run(_ scenario: String, _ setup: Setup = Setup(), _ body: (TwoClientCall) async throws -> Void) async {
        var namespace: NetworkNamespace?
        var coturn: CoturnProcess?
        var janus: JanusProcess?
        var engines: [TracedMediaEngine] = []
        var chromiums: [ChromiumMediaEngine] = []
        var sessions: [CallSession] = []
        var call: TwoClientCall?
        let work = NSTemporaryDirectory() + "callscope-call-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            if setup.namespaced != nil { namespace = try await NetworkNamespace.create() }
            if setup.bobRelay != nil { coturn = try await CoturnProcess() }
            janus = try await JanusProcess()              // after the namespace: it gathers on csrig-calls0 too
            let url = try #require(janus?.url)
            for side in [Side.alice, .bob] {
                progress("launch chromium for \(side)\(setup.namespaced == side ? " in the namespace" : "")")
                let options = try setup.namespaced == side
                    ? ChromiumOptions(chromiumPath: #require(namespace).chromiumWrapper(in: work), fakeCameraFrameRate: 15,
                                      extraArguments: ["--remote-debugging-pipe"])
                    : ChromiumOptions(fakeCameraFrameRate: 15, fakeCameraFile: side == .alice ? setup.aliceCameraFile : nil)
                chromiums.append(try await ChromiumMediaEngine.launch(options))
                engines.append(TracedMediaEngine(chromiums[chromiums.count - 1]))
            }
            let alice = CallSession(signaling: JanusSignaling(url: url, room: RealCallTests.room), engine: engines[0],
                                    clock: ContinuousClock(), wallClock: Date.init)
            var bobConfiguration = CallSessionConfiguration()
            var bobDiscoverability: SessionDiscoverability?
            if let relay = coturn, let configure = setup.bobRelay {
                bobConfiguration.peerConnection = configure(relay)
                let probing = DiscoverabilityProbeConfiguration(stunServer: relay.endpoint, turnServer: relay.endpoint, credentials: relay.credentials)
                bobDiscoverability = SessionDiscoverability(probe: NamespaceProber(configuration: probing))
            }
            let bob = CallSession(signaling: JanusSignaling(url: url, room: RealCallTests.room), engine: engines[1],
                                  clock: ContinuousClock(), wallClock: Date.init, configuration: bobConfiguration, discoverability: bobDiscoverability)
            sessions = [alice, bob]
            let bobEvents = Timed(bob.events)
            if setup.bobJoinsFirst { try await bob.connect(display: "bob") }
            try await alice.connect(display: "alice")
            let publisher = CallPublisher(settings: setup.publisher)
            let publisherEvents = Timed(publisher.events)
            try await alice.publish(publisher)
            if !setup.bobJoinsFirst { try await bob.connect(display: "bob") }
            let aliceID = try #require(await alice.connection?.connectionId)
            let created = await bobEvents.wait(.seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } }
            try #require(created != nil, "bob sees alice's stream")
            let stream = try #require(await bob.streams.first { $0.streamId == aliceID })
            var subscriber: CallSubscriber?, lifecycle: Timed<CallSubscriberEvent>?, subscriberStats: Timed<StatsCallback>?
            if setup.subscribe {
                let made = CallSubscriber(stream: stream)
                subscriber = made
                lifecycle = Timed(made.events)
                subscriberStats = Timed(made.statsMonitor.events)
                try await bob.subscribe(made)
                let connected = await lifecycle?.wait(.seconds(20)) { $0 == .didConnect(stream) }
                try #require(connected != nil, "bob's subscriber connects")
                try await Task.sleep(for: setup.steady)
            }
            let ready = TwoClientCall(namespace: namespace, coturn: coturn, janus: try #require(janus), alice: alice, bob: bob, publisher: publisher,
                                      publisherEvents: publisherEvents, bobEvents: bobEvents, stream: stream,
                                      subscriber: subscriber, lifecycle: lifecycle, subscriberStats: subscriberStats, aliceEngine: engines[0], bobChromium: chromiums[1])
            call = ready
            try await body(ready)
        } catch {
            Issue.record("\(scenario) failed: \(error)")
        }
        if let namespace {
            try? await namespace.endBlackout()
            try? await namespace.stopDroppingUDP()
        }
        progress("\(scenario): tearing down")
        for session in sessions { await session.disconnect() }
        for engine in engines { await engine.shutdown() }
        await (call?.janus ?? janus)?.stop()
        await coturn?.stop()
        if namespace != nil { await NetworkNamespace.remove() }
        try? FileManager.default.removeItem(atPath: work)
    }
}

extension CallSubscriberEvent {
    /// A connection lifecycle event (`didConnect`, `didDisconnect`, `didReconnect`, `didFail`),
    /// not one of the layer policy's (`layerChanged`, `videoDisabled`, ...).
    var isConnectionLifecycle: Bool {
        switch self {
        case .didConnect, .didDisconnect, .didReconnect, .didFail: true
        default: false
        }
    }
}
