import Foundation
import Observability
import RTCStats

/// The human form of a replay: a header, one block per second (``CallbackTextPrinter``, as
/// `callscope call` prints a live call), events marked with `▶`, then a summary per stream and
/// a timeline of degradations.
struct TextReplayPrinter {
    let file: String
    let timeline: StatsTimeline
    /// The callbacks' lines, summary and timeline.
    var callbacks = CallbackTextPrinter(clockStyle: .sinceOrigin)
    /// Unix ms of the replay's second zero (its first callback or policy event).
    var origin: Double? {
        get { callbacks.origin }
        set { callbacks.origin = newValue }
    }

    init(file: String, timeline: StatsTimeline) {
        self.file = file
        self.timeline = timeline
    }

    func printHeader() {
        let samples = timeline.samples
        let peers = Set(samples.map(\.peer)).sorted()
        let duration = ((samples.last?.time ?? 0) - (samples.first?.time ?? 0)) / 1000
        var header = "\(file): \(timeline.format.rawValue), \(samples.count) samples, \(String(format: "%.0f", duration)) s, peers: \(peers.joined(separator: ", "))"
        if let scenario = timeline.metadata.first(where: { $0.name == "scenario" })?.value.string { header += ", scenario \(scenario)" }
        if let browser = timeline.metadata.first(where: { $0.name == "browser" })?.value.string { header += "\n  browser: \(browser)" }
        Swift.print(header)
    }

    mutating func print(_ callbacks: [StatsCallback]) {
        for callback in callbacks {
            for line in self.callbacks.lines(for: callback) { Swift.print(line) }
        }
    }

    func printSummary() {
        for line in callbacks.summaryLines() { Swift.print(line) }
    }
}
