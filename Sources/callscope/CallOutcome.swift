import Foundation
import Observability
import RTCStats

/// What one call of `callscope probe` achieved, from its stats callbacks: the facts of its
/// summary line and of the probe's metrics. Did it join, did media flow in every direction it
/// asked for (video bytes sent when publishing, received when subscribing), the worst network
/// condition any link reported (with the link and, for a subscribed stream, the degradation
/// source at that moment), and the mean decoded frame rate received.
struct CallOutcome: Equatable {
    /// Which link a condition was judged on.
    enum Link: String, Equatable { case uplink, downlink, remoteUplink = "remote_uplink" }

    /// The worst condition seen, where and why.
    struct Worst: Equatable {
        var condition: NetworkCondition
        var link: Link
        /// The subscribed stream's degradation source then; `nil` for the publisher's uplink.
        var source: NetworkDegradationSource?
    }

    /// Whether the call publishes (media must then be sent).
    var publishing: Bool
    /// Whether the call subscribes (media must then be received).
    var subscribing: Bool
    /// Whether the session connected to the room.
    var joined = false
    /// What stopped the call, when something did.
    var failure: String?
    /// Video payload bytes the publisher sent (the highest total seen).
    private(set) var videoBytesSent: UInt64 = 0
    /// Video payload bytes received, over every subscribed stream (each stream's highest total).
    var videoBytesReceived: UInt64 { receivedByStream.values.reduce(0, +) }
    /// The worst condition any link reported (`unknown` is no verdict and never the worst).
    private(set) var worst: Worst?
    private var receivedByStream: [String: UInt64] = [:]
    private var frameRateSum = 0.0
    private var frameRateSamples = 0

    init(publishing: Bool, subscribing: Bool) {
        self.publishing = publishing
        self.subscribing = subscribing
    }

    /// Mean decoded frames per second over the subscribers' video samples that had received
    /// video; `nil` when none had.
    var receivedFrameRate: Double? { frameRateSamples > 0 ? frameRateSum / Double(frameRateSamples) : nil }

    /// Joined, nothing failed, and media flowed in every direction asked for.
    var succeeded: Bool { problems.isEmpty }

    /// Why the call failed, in order; empty when it succeeded.
    var problems: [String] {
        var problems: [String] = []
        if let failure { problems.append(failure) }
        if !joined, failure == nil { problems.append("did not join") }
        if joined, publishing, videoBytesSent == 0 { problems.append("sent no video") }
        if joined, subscribing, videoBytesReceived == 0 { problems.append("received no video") }
        return problems
    }

    /// Takes one stats callback of the call.
    mutating func ingest(_ callback: StatsCallback) {
        switch callback.event {
        case .publisherVideoNetworkStatsUpdated(let links):
            for stats in links { videoBytesSent = max(videoBytesSent, stats.videoBytesSent) }
        case .subscriberVideoNetworkStatsUpdated(let stats):
            let stream = callback.stream?.rawValue ?? ""
            receivedByStream[stream] = max(receivedByStream[stream] ?? 0, stats.videoBytesReceived)
            if stats.videoBytesReceived > 0, stats.decodedFrameRate.isFinite {
                frameRateSum += stats.decodedFrameRate
                frameRateSamples += 1
            }
        case .publisherMediaLinkStatsUpdated(let links):
            for stats in links { note(stats.transport.networkCondition, on: .uplink, source: nil) }
        case .subscriberMediaLinkStatsUpdated(let stats):
            note(stats.transport.networkCondition, on: .downlink, source: stats.networkDegradationSource)
            note(stats.remotePublisherTransport.networkCondition, on: .remoteUplink, source: stats.networkDegradationSource)
        default:
            break
        }
    }

    private mutating func note(_ condition: NetworkCondition, on link: Link, source: NetworkDegradationSource?) {
        guard condition != .unknown else { return }
        if let worst, worst.condition <= condition { return }
        worst = Worst(condition: condition, link: link, source: source)
    }

    // MARK: - The summary line

    /// The text line: `call 3 ok: joined, sent video, received video; worst fair (downlink, source remote); 29.8 fps received; 20.1 s`.
    func textLine(number: Int, seconds: Double) -> String {
        var parts = [joined ? "joined" : "not joined"]
        if publishing { parts.append(videoBytesSent > 0 ? "sent video" : "sent no video") }
        if subscribing { parts.append(videoBytesReceived > 0 ? "received video" : "received no video") }
        var line = "call \(number) \(succeeded ? "ok" : "FAILED"): " + parts.joined(separator: ", ")
        if let worst {
            line += "; worst \(worst.condition.rawValue) (\(worst.link.rawValue)\(worst.source.map { ", source \($0.rawValue)" } ?? ""))"
        } else {
            line += "; no condition judged"
        }
        if let rate = receivedFrameRate { line += String(format: "; %.1f fps received", rate) }
        line += String(format: "; %.1f s", seconds)
        if !succeeded { line += " — " + problems.joined(separator: "; ") }
        return line
    }

    /// The same facts as one JSON object (`--format ndjson`).
    func json(number: Int, start: Double, seconds: Double) -> JSONValue {
        .object([
            StatsField("probe", .string("call")), StatsField("call", .number(Double(number))),
            StatsField("t", .number(start.rounded())), StatsField("seconds", .number((seconds * 10).rounded() / 10)),
            StatsField("ok", .bool(succeeded)), StatsField("joined", .bool(joined)),
            StatsField("videoBytesSent", publishing ? .number(Double(videoBytesSent)) : .null),
            StatsField("videoBytesReceived", subscribing ? .number(Double(videoBytesReceived)) : .null),
            StatsField("worstCondition", worst.map { .string($0.condition.rawValue) } ?? .null),
            StatsField("worstLink", worst.map { .string($0.link.rawValue) } ?? .null),
            StatsField("degradationSource", worst?.source.map { .string($0.rawValue) } ?? .null),
            StatsField("receivedFrameRate", receivedFrameRate.map { .number(($0 * 10).rounded() / 10) } ?? .null),
            StatsField("problems", .array(problems.map(JSONValue.string))),
        ])
    }
}
