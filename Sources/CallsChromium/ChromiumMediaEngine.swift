import Observability
import Calls
import Foundation
import RTCStats

/// A ``MediaEngine`` that is one headless Chromium, driven over WebDriver by a chromedriver we
/// start on a free port, with a page of ours that owns the `RTCPeerConnection`s.
///
/// With ``ChromiumOptions/webDriverURL`` the browser is one a WebDriver endpoint already serves
/// (another machine's chromedriver, a Selenium Grid): nothing then assumes it shares our
/// loopback. The page is not a file of ours but injected: the browser opens `file:///` (its own
/// root directory, a secure context, as `getUserMedia` needs) and the engine script is run in
/// it over WebDriver; commands, replies and events all travel on the WebDriver connection we
/// open, so the browser never connects back to us. Janus' media addresses (its ICE candidates)
/// must be reachable from the browser's host; its HTTP API only from ours.
///
/// chromedriver runs one command at a time per session, so commands go out one at a time, none
/// waits on the network inside the page, and each reply carries the page's queued events; when
/// no command has run for ``ChromiumOptions/eventPollInterval`` the engine asks for them. The
/// events therefore reach ``events`` in the order the page saw them.
public actor ChromiumMediaEngine: MediaEngine {
    /// Every peer connection's events, in page order.
    public nonisolated let events: AsyncStream<MediaEngineEvent>
    /// The browser's version, as chromedriver reported it.
    public nonisolated let browserVersion: String?
    /// Events the page dropped because its queue was full, plus events we could not read.
    public private(set) var droppedEvents = 0

    let continuation: AsyncStream<MediaEngineEvent>.Continuation
    private let driver: WebDriverClient
    private let process: ChildProcess?
    private let session: String
    private let pollInterval: Duration
    private var nextPeerConnection = 0
    private var commandRunning = false
    private var commandWaiters: [CheckedContinuation<Void, Never>] = []
    private var lastCommand = ContinuousClock.now
    private var pollTask: Task<Void, Never>?
    private var isShutDown = false
    private var pageDropped = 0
    /// The connections' frame sinks, and the channel their frames come over (from the first sink).
    let frameSinks = FrameSinkRegistry()
    var frameChannel: FrameChannelServer?
    /// Where the frame channel listens; `nil` for a remote browser given no address of ours.
    let frameChannelAddress: String?

    /// Starts chromedriver and Chromium and loads the engine page.
    /// With ``ChromiumOptions/webDriverURL``, opens a browser session at that endpoint instead.
    public static func launch(_ options: ChromiumOptions = .init()) async throws(MediaEngineError) -> ChromiumMediaEngine {
        if let endpoint = options.webDriverURL { return try await attach(to: endpoint, options) }
        let files = FileManager.default
        for (what, path, package) in [("chromedriver", options.chromedriverPath, "chromium-driver"), ("Chromium", options.chromiumPath, "chromium")]
        where !files.isExecutableFile(atPath: path) {
            throw MediaEngineError(.engineUnavailable, "\(what) not found at \(path) (Debian: apt-get install \(package))")
        }
        let work = options.workDirectory ?? (NSTemporaryDirectory() + "callscope-chromium-\(UUID().uuidString)")
        do {
            try files.createDirectory(atPath: work, withIntermediateDirectories: true)
            try EnginePage.html.write(toFile: work + "/engine.html", atomically: true, encoding: .utf8)
        } catch {
            throw MediaEngineError(.engineUnavailable, "cannot write the engine page under \(work): \(error)")
        }
        guard let port = FreePort.tcp() else { throw MediaEngineError(.engineUnavailable, "no free TCP port for chromedriver") }
        let process: ChildProcess
        do {
            process = try ChildProcess(executable: options.chromedriverPath,
                                       arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-path=\(work)/chromedriver.log"],
                                       outputPath: work + "/chromedriver.out")
        } catch {
            throw MediaEngineError(.engineUnavailable, error.description)
        }
        let driver = WebDriverClient(port: port)
        do {
            let deadline = ContinuousClock.now + .seconds(20)
            while case let status = await driver.readiness(), status != nil {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    throw MediaEngineError(.engineUnavailable, "chromedriver on port \(port) not ready: \(status ?? "") (log: \(work)/chromedriver.log)")
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            let capabilities: JSONValue = .object([
                StatsField("browserName", .string("chrome")),
                StatsField("goog:chromeOptions", .object([
                    StatsField("binary", .string(options.chromiumPath)),
                    StatsField("args", .array(options.chromiumArguments(profile: work + "/profile").map(JSONValue.string))),
                ])),
            ])
            let (session, version) = try await driver.newSession(capabilities: capabilities)
            let engine = ChromiumMediaEngine(driver: driver, process: process, session: session, browserVersion: version,
                                             pollInterval: options.eventPollInterval,
                                             frameChannelAddress: options.frameChannelAddress ?? "127.0.0.1")
            do {
                try await driver.setScriptTimeout(session: session, milliseconds: 30_000)
                try await driver.navigate(session: session, to: URL(fileURLWithPath: work + "/engine.html").absoluteString)
                _ = try await engine.run("drain", [])
            } catch {
                await engine.shutdown()
                throw error
            }
            await engine.startPolling()
            return engine
        } catch {
            await process.stop()
            throw (error as? MediaEngineError) ?? MediaEngineError(.engineUnavailable, "\(error)")
        }
    }

    /// An engine on a browser session that is ready (its page loaded); `process` is our
    /// chromedriver, `nil` for a WebDriver endpoint's browser; `frameChannelAddress` is where
    /// video frames are received (`nil`: nowhere the browser could reach).
    init(driver: WebDriverClient, process: ChildProcess?, session: String, browserVersion: String?, pollInterval: Duration,
         frameChannelAddress: String?) {
        (events, continuation) = AsyncStream<MediaEngineEvent>.makeStream()
        self.driver = driver
        self.process = process
        self.session = session
        self.browserVersion = browserVersion
        self.pollInterval = pollInterval
        self.frameChannelAddress = frameChannelAddress
    }

    // MARK: - MediaEngine

    /// Creates a peer connection (max-bundle, rtcp-mux) with the configuration's ICE servers and
    /// transport policy.
    public func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        nextPeerConnection += 1
        let id = PeerConnectionID("pc-\(nextPeerConnection)")
        let config: JSONValue = .object([
            StatsField("iceServers", .array(configuration.iceServers.map(JSONValue.string))),
            StatsField("username", configuration.username.map(JSONValue.string) ?? .null),
            StatsField("credential", configuration.credential.map(JSONValue.string) ?? .null),
            StatsField("iceTransportPolicy", .string(configuration.iceTransportPolicy.rawValue)),
        ])
        _ = try await run("make", [.string(id.rawValue), config])
        return id
    }

    /// Closes a peer connection, stops its capture tracks and its frame sink.
    public func closePeerConnection(_ id: PeerConnectionID) async throws {
        frameSinks.set(nil, for: id)
        _ = try await run("close", [.string(id.rawValue)])
    }

    /// Captures the fake camera/microphone and adds send-only transceivers.
    public func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws {
        let encodings = settings.encodings.map { layer -> JSONValue in
            .object([StatsField("rid", .string(layer.rid)), StatsField("scale", .number(layer.scaleResolutionDownBy)),
                     StatsField("maxBitrate", .number(Double(layer.maxBitrate)))])
        }
        let value: JSONValue = .object([
            StatsField("audio", .bool(settings.audio)), StatsField("video", .bool(settings.video)),
            StatsField("width", .number(Double(settings.width))), StatsField("height", .number(Double(settings.height))),
            StatsField("frameRate", .number(Double(settings.frameRate))), StatsField("encodings", .array(encodings)),
            StatsField("codec", settings.preferredVideoCodec.map(JSONValue.string) ?? .null),
            StatsField("audioMaxBitrate", settings.audioMaxBitrate.map { .number(Double($0)) } ?? .null),
        ])
        _ = try await run("addLocalMedia", [.string(id.rawValue), value])
    }

    /// Creates an offer (not set).
    public func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        try description(from: try await run("createOffer", [.string(id.rawValue), .bool(iceRestart)]))
    }

    /// Sets an offer as the local description.
    public func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        _ = try await run("setLocal", [.string(id.rawValue), Self.value(of: description)])
    }

    /// Creates and sets a local answer.
    public func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        try description(from: try await run("createAnswer", [.string(id.rawValue)]))
    }

    /// Sets the remote description.
    public func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        _ = try await run("setRemote", [.string(id.rawValue), Self.value(of: description)])
    }

    /// Adds a remote candidate (`nil`: end of candidates).
    public func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        var value = JSONValue.null
        if let candidate {
            value = .object([StatsField("candidate", .string(candidate.candidate)),
                             StatsField("sdpMid", candidate.sdpMid.map(JSONValue.string) ?? .null),
                             StatsField("sdpMLineIndex", candidate.sdpMLineIndex.map { .number(Double($0)) } ?? .null)])
        }
        _ = try await run("addCandidate", [.string(id.rawValue), value])
    }

    /// Opens an ordered, reliable data channel.
    public func openDataChannel(label: String, on id: PeerConnectionID) async throws {
        _ = try await run("openDataChannel", [.string(id.rawValue), .string(label)])
    }

    /// Sends text on an open data channel.
    public func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        _ = try await run("send", [.string(id.rawValue), .string(label), .string(text)])
    }

    /// Enables or disables the tracks of one kind (sent and received).
    public func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        _ = try await run("setTracksEnabled", [.string(id.rawValue), .string(kind.rawValue), .bool(enabled)])
    }

    /// `getStats()`, read with RTCStats' JSON reader.
    public func stats(of id: PeerConnectionID) async throws -> StatsReport {
        let result = try await run("stats", [.string(id.rawValue)])
        guard let text = result.string else {
            throw MediaEngineError(.engineUnavailable, "stats of \(id): the page returned no JSON text")
        }
        do {
            return try StatsReport(json: Array(text.utf8))
        } catch {
            throw MediaEngineError(.engineUnavailable, "stats of \(id): \(error)")
        }
    }

    /// Ends the browser session and chromedriver; ``events`` finishes.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        pollTask?.cancel()
        frameChannel?.stop()
        await driver.deleteSession(session)
        await process?.stop()
        continuation.finish()
        for waiter in commandWaiters { waiter.resume() }
        commandWaiters.removeAll()
    }

    // MARK: - Commands

    private static let runScript = """
        const done = arguments[arguments.length - 1];
        if (!window.callscopeEngine) { done({ok: false, error: 'the engine page is not loaded', events: []}); return; }
        window.callscopeEngine.run(arguments[0], arguments[1]).then(done);
        """

    /// Runs one page command, one at a time, and delivers the events its reply carries.
    func run(_ command: String, _ args: [JSONValue]) async throws(MediaEngineError) -> JSONValue {
        guard !isShutDown else { throw MediaEngineError(.shutDown, "\(command): the engine was shut down") }
        if commandRunning {
            // The finishing command hands its turn over: `commandRunning` stays true.
            await withCheckedContinuation { commandWaiters.append($0) }
            guard !isShutDown else { throw MediaEngineError(.shutDown, "\(command): the engine was shut down") }
        }
        commandRunning = true
        defer {
            lastCommand = .now
            if commandWaiters.isEmpty {
                commandRunning = false
            } else {
                commandWaiters.removeFirst().resume()
            }
        }
        let reply = try await driver.engineCommand(session: session, command, args, fallbackScript: Self.runScript)
        deliver(reply["events"]?.array ?? [])
        if let dropped = reply["droppedEvents"]?.number, Int(dropped) > pageDropped {
            droppedEvents += Int(dropped) - pageDropped
            pageDropped = Int(dropped)
        }
        guard reply["ok"]?.bool == true else {
            throw MediaEngineError(.rejected, "\(command): \(reply["error"]?.string ?? "no reply")")
        }
        return reply["result"] ?? .null
    }

    func startPolling() {
        let interval = pollInterval
        pollTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, await self.pollIfIdle(interval) else { return }
            }
        }
    }

    private func pollIfIdle(_ interval: Duration) async -> Bool {
        guard !isShutDown else { return false }
        if !commandRunning, ContinuousClock.now - lastCommand >= interval {
            _ = try? await run("drain", [])
        }
        return !isShutDown
    }

    private func deliver(_ raw: [JSONValue]) {
        for value in raw {
            if let event = MediaEngineEvent(page: value) {
                continuation.yield(event)
            } else {
                droppedEvents += 1
                continuation.yield(.dropped(reason: "unreadable page event \(JSONWriter.string(value).prefix(120))"))
            }
        }
    }

    /// A description as the page takes it: `{type, sdp}`.
    private static func value(of description: SessionDescription) -> JSONValue {
        .object([StatsField("type", .string(description.kind.rawValue)), StatsField("sdp", .string(description.sdp))])
    }

    private func description(from value: JSONValue) throws(MediaEngineError) -> SessionDescription {
        guard let type = value["type"]?.string, let kind = SessionDescription.Kind(rawValue: type), let sdp = value["sdp"]?.string else {
            throw MediaEngineError(.engineUnavailable, "the page returned no description: \(JSONWriter.string(value).prefix(120))")
        }
        return SessionDescription(kind: kind, sdp: sdp)
    }
}
