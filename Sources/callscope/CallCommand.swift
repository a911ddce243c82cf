import Calls
import CallsChromium
import CallScopeCore
import CallsJanus
import Dispatch
import Foundation
import Observability
import RTCStats

/// `callscope call`: joins a Janus VideoRoom as a live client (headless Chromium as the media
/// engine) and prints what the SDK reports: lifecycle events and the stats callbacks of the
/// replay interface, one line each.
struct CallCommand: Command {
    static let name = "call"
    static let summary = "Join a Janus room as a live client and print what the SDK reports."
    static let help = """
    callscope call (--janus URL [--room N] | --xmpp URL --jid JID --call|--answer FRIEND) [--publish] [--subscribe all|none] [--duration S]
                   [--format text|ndjson] [--display NAME] [--chromedriver PATH] [--chromium PATH | --webdriver URL [--frame-address ADDR]]
                   [--stun HOST:PORT [--turn HOST:PORT --user U --password P]]
                   [--record FILE] [--report FILE]
                   [--metrics-port N [--metrics-host ADDR]] [--push URL] [--otlp URL]
                   [--width W --height H --fps N --bitrates q,h,f --camera-file FILE]
                   [--preferred-resolution WxH] [--preferred-frame-rate F] [--no-audio-fallback]
                   [--publisher-no-audio-fallback] [--save-video DIR]
                   [--video-truth CLIP [--video-truth-capture FILE] [--video-truth-capture-out FILE]]

    Joins a Janus VideoRoom (default room 1234) as a live client, with a headless Chromium
    (started through chromedriver; Debian paths by default) as the media engine, and prints what
    the SDK reports: session.didConnect, session.streamCreated/streamDestroyed,
    session.connectionCreated/connectionDestroyed, subscriber.didConnect/didDisconnect/
    didReconnect, and the stats callbacks of `replay`, one line each (`t` in unix ms); also
    participant.didConnect/didDisconnect/pathsChanged (working paths to each participant) and,
    with --stun, session.connectionStateChanged (udp / tcp / offline, probed as `discover`).
    --publish publishes the fake camera (3-layer VP8 simulcast) and microphone; --subscribe all
    (default) subscribes to every other stream; --duration defaults to 30; SIGINT or SIGTERM
    ends the call earlier, as cleanly (it hangs up and writes --record), also when it comes
    during the start-up (the call then ends as soon as it has started).
    --webdriver URL drives a browser a WebDriver endpoint already serves (a chromedriver on
    another host started with --allowed-ips, a Selenium Grid: http://HOST:PORT[/PATH]) instead of
    starting chromedriver and Chromium here (then --chromedriver and --chromium are refused and
    --camera-file is a path on the browser's host). The browser needs no route back to us: it
    opens file:/// and the engine page is injected over WebDriver, whose connection we open and
    which carries every command, reply and event. Video frames (--save-video) are the exception:
    they come back over a WebSocket of ours, on --frame-address ADDR (an IPv4 address of this
    host that the browser's host can reach); without it --save-video is refused. Janus' media
    addresses (its ICE candidates) must be reachable from the browser's host; its HTTP API
    (--janus) only from here. An endpoint that cannot be reached or gives no session ends the call with one line, exit 1.
    --record FILE writes a webrtc-stats-recording (plain ndjson) of every report and sender-stats
    message the SDK fed its stats monitors, the subscribers' stream bindings, the receive limits
    the layer policy gave them when it decided (subscriber.receiveLimit {limit, stream}) and the
    lifecycle events; `callscope replay FILE` gives the same stats callbacks.
    --report FILE writes, when the call ends, the HTML report `callscope report` writes for that
    recording (with or without --record).
    --format text (default) prints each stats callback's values as `replay` does (layers, sizes,
    frame rates, bitrates, loss, condition and reason, degradation source; events marked ▶),
    and ends with the call's span, a summary per stream and the timeline of degradations
    (times from the call's start); --format ndjson prints one JSON line per callback and event.
    \(CallXMPPOptions.help)
    \(CallMediaOptions.help)
    \(CallLiveMetricsOptions.help)
    \(CallVideoSaver.help)
    \(CallVideoTruth.help)
    The subscribers' layer policy prints (and records) subscriber.layerChanged {substream,
    temporal, limit}, subscriber.videoDisableWarning / videoDisableWarningLifted and
    subscriber.videoDisabled / videoEnabled {reason}. --preferred-resolution and
    --preferred-frame-rate set every subscriber's preferences, --no-audio-fallback its own
    audio-fallback switch; --publisher-no-audio-fallback publishes with audioFallbackEnabled
    false (subscribers then never switch its video off for quality).
    """

    enum Format: String { case text, ndjson }
    enum SubscribeMode: String { case all, none }

    var janus: URL?
    /// `--xmpp` and its options: a relayed call instead of a Janus room.
    var xmpp = CallXMPPOptions()
    var room: UInt64 = 1234
    var publish = false
    var subscribe = SubscribeMode.all
    var duration: Double = 30
    var format = Format.text
    var display = "callscope"
    var chromium = ChromiumOptions()
    var discoverability: SessionDiscoverability?
    var record: String?
    var report: String?
    var liveMetrics = CallLiveMetricsOptions()
    var media = CallMediaOptions()
    var preferredResolution: CallVideoDimensions?
    var preferredFrameRate: Double?
    var subscriberAudioFallback = true
    var publisherAudioFallback = true
    var saveVideo: String?
    /// `--video-truth`, `--video-truth-capture`, `--video-truth-capture-out`.
    var videoTruth: [String: String] = [:]

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        var probes = CallDiscoverabilityOptions()
        var ownBrowserOptions: [String] = []
        while let argument = remaining.popFirst() {
            switch argument {
            case _ where CallDiscoverabilityOptions.options.contains(argument): try probes.take(argument, value(argument))
            case _ where CallMediaOptions.options.contains(argument): try media.take(argument, value(argument))
            case _ where CallLiveMetricsOptions.options.contains(argument): try liveMetrics.take(argument, value(argument))
            case _ where CallXMPPOptions.options.contains(argument): try xmpp.take(argument, value(argument))
            case "--janus":
                let text = try value(argument)
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                    throw UsageError("--janus takes the API URL, e.g. http://127.0.0.1:8088/janus")
                }
                janus = url
            case "--room":
                guard let parsed = UInt64(try value(argument)) else { throw UsageError("--room takes a room number") }
                room = parsed
            case "--publish": publish = true
            case "--subscribe":
                guard let parsed = SubscribeMode(rawValue: try value(argument)) else { throw UsageError("--subscribe takes 'all' or 'none'") }
                subscribe = parsed
            case "--duration":
                guard let parsed = Double(try value(argument)), parsed > 0, parsed.isFinite else { throw UsageError("--duration takes seconds > 0") }
                duration = parsed
            case "--format":
                guard let parsed = Format(rawValue: try value(argument)) else { throw UsageError("--format takes 'text' or 'ndjson'") }
                format = parsed
            case "--display": display = try value(argument)
            case "--chromedriver": chromium.chromedriverPath = try value(argument); ownBrowserOptions.append(argument)
            case "--chromium": chromium.chromiumPath = try value(argument); ownBrowserOptions.append(argument)
            case "--webdriver": chromium.webDriverURL = try Self.webDriverEndpoint(try value(argument))
            case "--frame-address": chromium.frameChannelAddress = try Self.frameAddress(try value(argument))
            case "--record": record = try value(argument)
            case "--report": report = try value(argument)
            case "--preferred-resolution":
                let parts = try value(argument).split(separator: "x")
                guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
                    throw UsageError("--preferred-resolution takes WIDTHxHEIGHT, e.g. 480x270")
                }
                preferredResolution = CallVideoDimensions(width: width, height: height)
            case "--preferred-frame-rate":
                guard let parsed = Double(try value(argument)), parsed > 0, parsed.isFinite else { throw UsageError("--preferred-frame-rate takes frames per second > 0") }
                preferredFrameRate = parsed
            case "--no-audio-fallback": subscriberAudioFallback = false
            case "--publisher-no-audio-fallback": publisherAudioFallback = false
            case "--save-video": saveVideo = try value(argument)
            case _ where CallVideoTruth.options.contains(argument): videoTruth[argument] = try value(argument)
            default: throw UsageError("unknown option '\(argument)' for call")
            }
        }
        guard janus != nil || xmpp.isSet else { throw UsageError("call needs --janus URL or --xmpp URL") }
        if xmpp.isSet {
            guard janus == nil else { throw UsageError("--janus and --xmpp: a call goes through a Janus room or to an XMPP friend, not both") }
            _ = try xmpp.account()
        }
        if !videoTruth.isEmpty, videoTruth["--video-truth"] == nil { throw UsageError("--video-truth-capture and --video-truth-capture-out go with --video-truth CLIP") }
        if chromium.webDriverURL != nil, let option = ownBrowserOptions.first {
            throw UsageError("\(option) starts our own browser; with --webdriver the endpoint's browser is used")
        }
        if chromium.webDriverURL != nil, chromium.frameChannelAddress == nil, saveVideo != nil {
            throw UsageError("--save-video with --webdriver needs --frame-address ADDR: the remote browser sends the frames to us")
        }
        discoverability = try probes.discoverability()
        media.apply(to: &chromium)
    }

    func run() throws -> ExitCode {
        let failure = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let command = self
        Task {
            do { try await command.call() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return .success
    }

    private func call() async throws {
        let end = CallEnd()
        defer { end.finish() }
        if let report, !FileManager.default.createFile(atPath: report, contents: nil) { throw UsageError("--report: cannot create \(report)") }
        let recorder = record != nil || report != nil ? try CallRecorder(path: record, display: display) : nil
        let metrics = liveMetrics.isEmpty ? nil : try CallLiveMetrics(liveMetrics, call: display)
        if let port = metrics?.port { CallLiveMetrics.standardErrorLine("metrics at http://\(liveMetrics.host):\(port)/metrics") }
        let out = CallEventPrinter(format: format, recorder: recorder, metrics: metrics)
        let exports = metrics?.exportPeriodically(every: CallSessionConfiguration().statsInterval) ?? []
        do {
            _ = try await makeCall(until: end, printer: out)
        } catch {
            for task in exports { task.cancel() }
            try? await metrics?.finish()
            throw error
        }
        for task in exports { task.cancel() }
        try await metrics?.finish()
    }

    /// One call, with a fresh browser: joins, publishes and subscribes as asked until
    /// `--duration` or a signal (what ended it is returned), hangs up, and writes `--record` and
    /// `--report`. `joined` runs once the session has connected. `callscope probe` makes its
    /// calls with it too.
    func makeCall(until end: CallEnd, printer out: CallEventPrinter, joined: @Sendable () -> Void = {}) async throws -> CallEnd.Cause {
        let relayed = xmpp.isSet ? try await RelayedCallConnection.open(xmpp) : nil
        let signaling: any Signaling
        if let relayed {
            signaling = relayed.signaling
        } else if let janus {
            signaling = JanusSignaling(url: janus, room: room)
        } else {
            return .duration
        }
        let recorder = out.recorder
        let saver = try saveVideo.map { try CallVideoSaver(directory: $0, frameRate: media.localMedia.frameRate) }
        let truth = try videoTruth["--video-truth"].map {
            try CallVideoTruth(clipPath: $0, capture: videoTruth["--video-truth-capture"], captureOut: videoTruth["--video-truth-capture-out"])
        }
        let engine = try await ChromiumMediaEngine.launch(chromium)
        if saver != nil {
            do { try await CallVideoSaver.checkFrames(from: engine) } catch {
                await engine.shutdown()
                throw error
            }
        }
        let session = CallSession(signaling: signaling, engine: engine,
                                  clock: ContinuousClock(), wallClock: Date.init, discoverability: discoverability)
        if let recorder { await session.record(to: recorder.writer, peer: display) }
        var followers: [Task<Void, Never>] = []
        let sessionEvents = session.events
        let subscribeMode = subscribe
        let (resolution, frameRate, fallback) = (preferredResolution, preferredFrameRate, subscriberAudioFallback)
        followers.append(Task {
            for await event in sessionEvents {
                out.session(event)
                guard subscribeMode == .all, case .streamCreated(let stream) = event else { continue }
                // Our own stream comes as streamCreated too (seed 004): not subscribed to.
                guard await stream.connection.connectionId != session.connection?.connectionId else { continue }
                let subscriber = CallSubscriber(stream: stream)
                subscriber.preferredResolution = resolution
                subscriber.preferredFrameRate = frameRate
                subscriber.audioFallbackEnabled = fallback
                out.follow(subscriber)
                saver?.save(subscriber)
                truth?.measure(subscriber)
                do {
                    try await session.subscribe(subscriber)
                } catch {
                    out.failure("subscribe \(stream.streamId)", error)
                }
            }
        })
        let truthIntervals = format == .ndjson
            ? truth?.reportPeriodically(every: .seconds(5)) { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) } : nil
        let cause: CallEnd.Cause
        do {
            try await session.connect(display: display)
            joined()
            if publish {
                let publisher = CallPublisher(settings: CallPublisherSettings(name: display, media: media.localMedia, senderStatsTrack: true,
                                                                              audioFallbackEnabled: publisherAudioFallback))
                out.follow(publisher)
                saver?.save(publisher)
                truth?.measure(publisher)
                try await session.publish(publisher)
                if let stream = publisher.stream { recorder?.noteStream(stream, own: true); out.line(callback: TimelineEventName.publisherStreamCreated, peer: "publisher", stream: stream.streamId, data: CallEventPrinter.json(stream)) }
            }
            cause = await end.wait(seconds: duration)
        } catch {
            truthIntervals?.cancel()
            await session.disconnect()
            await relayed?.client.disconnect()
            for task in followers { task.cancel() }
            await engine.shutdown()
            if let recording = try? recorder?.finish(browser: engine.browserVersion.map { "Chromium " + $0 }, sfu: nil, intervalMilliseconds: 1000) {
                try? writeReport(of: recording)
            }
            _ = try? saver?.finish()
            throw error
        }
        await session.disconnect()
        await relayed?.client.disconnect()
        for task in followers { task.cancel() }
        await engine.shutdown()
        truthIntervals?.cancel()
        await out.finish()
        for line in truth?.finish(format: format) ?? [] { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        for line in try saver?.finish() ?? [] { FileHandle.standardError.write(Data("saved video: \(line)\n".utf8)) }
        var sfu: String?
        if let janus { sfu = await JanusInfo.version(at: janus) }
        let recording = try recorder?.finish(browser: engine.browserVersion.map { "Chromium " + $0 }, sfu: sfu,
                                             intervalMilliseconds: Double(session.configuration.statsInterval.components.seconds) * 1000
                                                 + Double(session.configuration.statsInterval.components.attoseconds) / 1e15)
        if let recording { try writeReport(of: recording) }
        return cause
    }

    /// `--frame-address ADDR`: a dotted IPv4 address (the frame channel listens there).
    static func frameAddress(_ text: String) throws -> String {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else {
            throw UsageError("--frame-address takes an IPv4 address of this host, e.g. 10.0.0.5, not '\(text)'")
        }
        return text
    }

    /// `--webdriver URL`: a plain-HTTP WebDriver endpoint (`http://HOST:PORT[/PATH]`).
    static func webDriverEndpoint(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.scheme == "http", let host = url.host, !host.isEmpty, url.query == nil, url.user == nil,
              (url.port ?? 80) > 0, (url.port ?? 80) <= 65_535 else {
            throw UsageError("--webdriver takes a WebDriver endpoint http://HOST:PORT[/PATH] (chromedriver, Selenium Grid), not '\(text)'")
        }
        return url
    }

    /// `--report`: the page `callscope report` writes for the call's own recording.
    func writeReport(of recording: [UInt8]) throws {
        guard let report else { return }
        do {
            try ReportCommand.write(try replayCallbacks(recording: recording, name: record ?? "callscope call \(display)"), to: report)
        } catch let error as ReplayFileError {
            throw CallReportFailure(description: "--report: \(error.message)")
        }
    }
}

/// A `--report` that could not be made (the message says why).
struct CallReportFailure: Error, CustomStringConvertible {
    let description: String
}
