import CallScopeCore
import Dispatch
import Foundation
import RTCStats

/// `callscope probe`: `callscope call` again and again, unattended. A call starts every
/// `--every` seconds, each with a fresh browser (which also bounds Chromium's memory: nothing
/// of one call's renderer outlives it); one summary line per call; the metrics server and
/// exporters stay up across calls, with the probe's own counters; exit 1 after `--max-failures`
/// failed calls in a row.
struct ProbeCommand: Command {
    static let name = "probe"
    static let summary = "Make a live call every N seconds, unattended: one summary line per call, metrics, exit after K failures in a row."
    static let help = """
    callscope probe --janus URL [--every S] [--max-failures K] [--calls N] [--duration S]
                    [--publish] [--subscribe all|none] [--display NAME] [--format text|ndjson]
                    [--webdriver URL | --chromedriver PATH --chromium PATH]
                    [--metrics-port N [--metrics-host ADDR]] [--push URL] [--otlp URL]
                    [the media and subscriber options of `callscope call`]

    Makes the call `callscope call` makes (the same options, --record, --report and --save-video excepted),
    every --every seconds (default 300, from one call's start to the next; a call that lasts
    longer delays the next, never overlaps it), each with a fresh browser, and prints one line
    per call instead of its callbacks:
      07:12:00 call 3 ok: joined, sent video, received video; worst fair (downlink, source remote); 29.8 fps received; 20.1 s
    A call succeeds when it joins the room and media flows in every direction it asked for:
    video sent with --publish, video received with --subscribe all (so a subscribing probe
    needs someone publishing in the room); otherwise the line says FAILED and why. With
    --format ndjson each line is a JSON object (ok, joined, videoBytesSent, videoBytesReceived,
    worstCondition, worstLink, degradationSource, receivedFrameRate, problems).
    --max-failures K (default 3) ends the probe with exit 1 after K failed calls in a row;
    --calls N ends it after N calls (default: never), exit 0 unless that limit was reached.
    SIGINT or SIGTERM ends the call under way cleanly, then the probe (exit 0).
    --metrics-port, --push and --otlp serve and send the calls' metrics as `callscope call`
    does, from the probe's start to its end, and the probe's own: callscope_probe_calls_total
    {result="succeeded"|"failed"}, callscope_probe_consecutive_failures,
    callscope_probe_last_call_succeeded, callscope_probe_last_call_end_timestamp_seconds,
    callscope_probe_last_call_received_frames_per_second, callscope_probe_interval_seconds
    (Rig/prometheus/callscope-alerts.yml alerts on them). Each call's stream series replace
    the previous call's (new stream ids every call); the others keep their series.
    """

    var call: CallCommand
    var every: Double = 300
    var maxFailures = 3
    var calls = 0

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        var forCall: [String] = []
        while let argument = remaining.popFirst() {
            func number(_ what: String) throws -> Double {
                guard let text = remaining.popFirst(), let value = Double(text), value.isFinite, value > 0 else {
                    throw UsageError("\(argument) takes \(what)")
                }
                return value
            }
            switch argument {
            case "--every": every = try number("seconds > 0")
            case "--max-failures":
                let value = try number("a whole number of calls >= 1")
                guard value == value.rounded(), value <= 1_000_000 else { throw UsageError("--max-failures takes a whole number of calls >= 1") }
                maxFailures = Int(value)
            case "--calls":
                let value = try number("a whole number of calls >= 1")
                guard value == value.rounded(), value <= 1_000_000_000 else { throw UsageError("--calls takes a whole number of calls >= 1") }
                calls = Int(value)
            case "--record", "--report", "--save-video": throw UsageError("\(argument) is for one call; use `callscope call`")
            default: forCall.append(argument)
            }
        }
        guard forCall.contains("--janus") else { throw UsageError("probe needs --janus URL") }
        call = try CallCommand(arguments: forCall)
    }

    func run() throws -> ExitCode {
        let result = Locked<Result<ExitCode, any Error>>(.success(.success))
        let done = DispatchSemaphore(value: 0)
        let command = self
        Task {
            do {
                let code = try await command.probe()
                result.withLock { $0 = .success(code) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }.get()
    }

    private func probe() async throws -> ExitCode {
        let end = CallEnd()
        defer { end.finish() }
        let metrics = call.liveMetrics.isEmpty ? nil : try CallLiveMetrics(call.liveMetrics, call: call.display, notify: Self.notice)
        if let port = metrics?.port { Self.notice("metrics at http://\(call.liveMetrics.host):\(port)/metrics") }
        var record = ProbeRecord(interval: every)
        metrics?.setExtraFamilies(record.families)
        let exports = metrics?.exportPeriodically(every: .seconds(1)) ?? []
        var code = ExitCode.success
        var number = 0
        while true {
            number += 1
            let started = Date()
            metrics?.startNewCall()
            let outcome = Locked(CallOutcome(publishing: call.publish, subscribing: call.subscribe == .all))
            let printer = CallEventPrinter(format: call.format, metrics: metrics, outcome: outcome, output: { _ in })
            var signalled = false
            do {
                let cause = try await call.makeCall(until: end, printer: printer, joined: { outcome.withLock { $0.joined = true } })
                if case .signal = cause { signalled = true }
            } catch {
                let message = "\(error)".split(separator: "\n").first.map(String.init) ?? "failed"
                outcome.withLock { $0.failure = message }
            }
            let result = outcome.withLock { $0 }
            let seconds = Date().timeIntervalSince(started)
            record.record(result, end: Date().timeIntervalSince1970)
            metrics?.setExtraFamilies(record.families)
            await metrics?.exportNow()
            switch call.format {
            case .text: Self.write("\(CallEventPrinter.clock(started.timeIntervalSince1970 * 1000).prefix(8)) \(result.textLine(number: number, seconds: seconds))")
            case .ndjson: Self.write(JSONWriter.string(result.json(number: number, start: started.timeIntervalSince1970 * 1000, seconds: seconds)))
            }
            if record.consecutiveFailures >= maxFailures {
                Self.notice("\(record.consecutiveFailures) failed call\(record.consecutiveFailures == 1 ? "" : "s") in a row (--max-failures \(maxFailures)); stopping")
                code = .failure
                break
            }
            if signalled || (calls > 0 && number >= calls) { break }
            let wait = every - Date().timeIntervalSince(started)
            if wait > 0, case .signal = await end.wait(seconds: wait) { break }
        }
        for task in exports { task.cancel() }
        try await metrics?.finish()
        return code
    }

    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    @Sendable private static func notice(_ text: String) {
        FileHandle.standardError.write(Data("callscope probe: \(text)\n".utf8))
    }
}
