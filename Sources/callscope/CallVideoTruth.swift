import Calls
import CallScopeCore
import Foundation
import RTCStats
import VideoFrames

/// `callscope call --video-truth CLIP`: every subscribed stream (and, with --publish, the local
/// preview) measured from its frames against the marker clip the publisher's camera plays
/// (docs/video.md, "Received-video truth"); one summary per stream when the call ends.
final class CallVideoTruth: Sendable {
    static let options: Set<String> = ["--video-truth", "--video-truth-capture", "--video-truth-capture-out"]
    static let help = """
    --video-truth CLIP.y4m (a clip from `callscope marker-clip`, the publisher's --camera-file)
    reads the index each received frame carries and prints, per stream when the call ends
    (text, or one ndjson line `subscriber.videoTruth` / `publisher.videoTruth`, and every 5 s
    `...videoTruthInterval` over the 5 s gone): new frames, delivered / sent (distinct indices
    against the indices the camera produced in that span), the longest gap between new frames,
    freezes and pauses (WebRTC's definitions), unreadable markers, and PSNR (Y; U, V in ndjson)
    against the clip's frame of the same index box-scaled to the received size.
    --video-truth-capture-out FILE (publishing) appends the local preview's frame indices and
    arrival times (unix s) to FILE as they come; --video-truth-capture FILE (receiving, on this
    machine) reads it at the end for each frame's latency: its arrival here minus the preview's
    arrival of the same frame at the publisher.
    """

    private struct Measured {
        var peer: String
        var stream: String
        var probe: VideoTruthProbe
        var output: VideoFrameOutput
    }

    let clip: MarkerClip
    let clipPath: String
    private let capturePath: String?
    private let captureLog: FileHandle?
    private let measured = Locked<[Measured]>([])

    /// Reads `clipPath`'s header and size and checks it is the ``MarkerClip`` they describe
    /// (its first and last frames are the ones the clip makes); opens `captureOut` for appending.
    init(clipPath: String, capture: String?, captureOut: String?) throws {
        let header: Y4MHeader
        var frames: [VideoFrameBuffer] = []
        do {
            var reader = try Y4MReader(path: clipPath)
            header = reader.header
            if let first = try reader.nextFrame() { frames.append(first) }
        } catch let error as VideoFrameError {
            throw UsageError("--video-truth: \(clipPath): \(error.message)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: clipPath)[.size] as? Int) ?? 0
        let frameBytes = "FRAME\n".utf8.count + header.frameByteCount
        let count = (size - header.encoded().count) / frameBytes
        guard header.frameRateDenominator == 1, count >= 2, (size - header.encoded().count) % frameBytes == 0,
              let clip = try? MarkerClip(width: header.width, height: header.height, frameRate: header.frameRateNumerator, frameCount: count),
              try frames.first?.storage == clip.frame(0).storage else {
            throw UsageError("--video-truth: \(clipPath) is not a clip `callscope marker-clip` wrote (its frames differ from the marker clip of its size, rate and length)")
        }
        self.clip = clip
        self.clipPath = clipPath
        capturePath = capture
        if let captureOut {
            guard FileManager.default.createFile(atPath: captureOut, contents: nil), let file = FileHandle(forWritingAtPath: captureOut) else {
                throw UsageError("--video-truth-capture-out: cannot create \(captureOut)")
            }
            captureLog = file
        } else {
            captureLog = nil
        }
    }

    /// Measures the subscriber's frames from now on.
    func measure(_ subscriber: CallSubscriber) {
        attach(subscriber.videoOutput, peer: "subscriber", stream: subscriber.stream.streamId, log: nil)
    }

    /// Measures the publisher's local preview from now on (and logs it for
    /// `--video-truth-capture-out`).
    func measure(_ publisher: CallPublisher) {
        attach(publisher.videoOutput, peer: "publisher", stream: "preview", log: captureLog)
    }

    private func attach(_ output: VideoFrameOutput, peer: String, stream: String, log: FileHandle?) {
        let probe = VideoTruthProbe(clip: clip, label: "\(peer)-\(stream)", measuresQuality: peer != "publisher")
        measured.withLock { $0.append(Measured(peer: peer, stream: stream, probe: probe, output: output)) }
        // Frames the renderer queue drops never reach the probe: keep the queue long enough
        // for a probe that returns at once (its PSNR runs on a queue of its own).
        output.queueLimit = max(output.queueLimit, 30)
        output.renderer = VideoTruthRenderer(probe: probe, log: log, next: output.renderer)
    }

    /// One line per stream: text, or the ndjson record `videoTruth`.
    func finish(format: CallCommand.Format) -> [String] {
        try? captureLog?.close()
        let capture = capturePath.flatMap { readCapture($0) }
        var lines: [String] = []
        for item in measured.withLock({ $0 }) {
            item.probe.drain()
            let summary: ReceivedVideoSummary = item.probe.timeline.summary(capture: item.peer == "subscriber" ? capture : nil)
            let stats = item.output.stats
            lines.append(format == .text ? Self.text(summary, item: item, stats: stats) : Self.ndjson(summary, item: item, stats: stats, callback: "videoTruth"))
        }
        return lines
    }

    /// `--format ndjson`: every `interval`, one `videoTruthInterval` record per stream over the
    /// interval just gone (no latency: the capture log is read at the end), written by `write`,
    /// until the task is cancelled.
    func reportPeriodically(every interval: Duration, write: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        Task {
            var from = Date().timeIntervalSince1970
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                let to = Date().timeIntervalSince1970
                for item in measured.withLock({ $0 }) {
                    let summary: ReceivedVideoSummary = item.probe.timeline.summary(over: from...to)
                    write(Self.ndjson(summary, item: item, stats: item.output.stats, callback: "videoTruthInterval"))
                }
                from = to
            }
        }
    }

    /// The publisher's preview timeline from a `--video-truth-capture-out` file (`INDEX TIME`
    /// lines; damaged lines are skipped).
    private func readCapture(_ path: String) -> ReceivedVideoTimeline? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            FileHandle.standardError.write(Data("callscope: --video-truth-capture: cannot read \(path); no latency\n".utf8))
            return nil
        }
        var timeline = ReceivedVideoTimeline(clipFrameCount: clip.frameCount, frameRate: Double(clip.frameRate))
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let index = Int(parts[0]), let time = Double(parts[1]) else { continue }
            timeline.record(.index(index), at: time, width: clip.width, height: clip.height)
        }
        return timeline
    }

    private static func text(_ summary: ReceivedVideoSummary, item: Measured, stats: VideoDeliveryStats) -> String {
        func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }
        var parts = ["video truth \(item.peer) \(item.stream): \(summary.newFrames) new frames",
                     String(format: "delivered %d/%d (%.1f %%)", summary.delivered, summary.sent, 100 * summary.deliveredFraction),
                     "longest gap \(summary.longestGap.map { ms($0.duration) } ?? "none")",
                     "freezes \(summary.freezes.count) (\(ms(summary.freezeSeconds)))", "pauses \(summary.pauses.count) (\(ms(summary.pauseSeconds)))"]
        parts += summary.quality.map { String(format: "PSNR %@ Y %.2f dB (min %.2f, %d frames)", $0.size, $0.meanY, $0.minimumY, $0.frames) }
        if let latency = summary.latency { parts.append("latency median \(ms(latency.median)) (p95 \(ms(latency.percentile95)), max \(ms(latency.maximum)))") }
        let unreadable = summary.unreadable.values.reduce(0, +)
        if unreadable > 0 { parts.append("unreadable \(unreadable)") }
        let dropped = stats.dropped.values.reduce(0, +)
        if dropped > 0 { parts.append("dropped before the probe \(dropped)") }
        return parts.joined(separator: ", ")
    }

    private static func ndjson(_ summary: ReceivedVideoSummary, item: Measured, stats: VideoDeliveryStats, callback: String) -> String {
        func number(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        func stalls(_ list: [VideoStall]) -> JSONValue { .array(list.map { .object([StatsField("t", .number(($0.start * 1000).rounded())), StatsField("seconds", number($0.duration))]) }) }
        var fields = [StatsField("newFrames", .number(Double(summary.newFrames))), StatsField("delivered", .number(Double(summary.delivered))),
                      StatsField("sent", .number(Double(summary.sent))), StatsField("seconds", number(summary.seconds)),
                      StatsField("longestGapSeconds", summary.longestGap.map { number($0.duration) } ?? .null),
                      StatsField("freezes", stalls(summary.freezes)), StatsField("pauses", stalls(summary.pauses)),
                      StatsField("meanFrameIntervalSeconds", summary.meanFrameInterval.map(number) ?? .null),
                      StatsField("repeated", .number(Double(summary.repeated))), StatsField("late", .number(Double(summary.late))),
                      StatsField("unreadable", .object(summary.unreadable.sorted { $0.key.rawValue < $1.key.rawValue }.map { StatsField($0.key.rawValue, .number(Double($0.value))) })),
                      StatsField("sizes", .object(summary.sizes.sorted { $0.key < $1.key }.map { StatsField($0.key, .number(Double($0.value))) })),
                      StatsField("psnr", .array(summary.quality.map { quality in
                          .object([StatsField("size", .string(quality.size)), StatsField("frames", .number(Double(quality.frames))),
                                   StatsField("y", number(quality.meanY)), StatsField("minY", number(quality.minimumY)),
                                   StatsField("u", number(quality.meanU)), StatsField("v", number(quality.meanV))])
                      })),
                      StatsField("psnrNotMeasured", .number(Double(summary.qualitySkipped))),
                      StatsField("droppedBeforeProbe", .number(Double(stats.dropped.values.reduce(0, +))))]
        if let latency = summary.latency {
            fields.append(StatsField("latencySeconds", .object([StatsField("frames", .number(Double(latency.count))), StatsField("min", number(latency.minimum)),
                                                                StatsField("median", number(latency.median)), StatsField("p95", number(latency.percentile95)),
                                                                StatsField("max", number(latency.maximum))])))
        }
        var line = NDJSONLine(t: (Date().timeIntervalSince1970 * 1000).rounded())
        line.string("peer", item.peer)
        line.string("pc", "")
        line.string("stream", item.stream)
        line.string("callback", "\(item.peer).\(callback)")
        line.value("data", .object(fields))
        return line.line
    }
}
