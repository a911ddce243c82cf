@testable import Calls
import Observability
import Testing

/// The layer policy as tables: each step is the time (s), one input, and the actions expected.
/// Layers as the rig's publisher sends them: q 320x180 at 150 kbps, h 640x360 at 500 kbps, f
/// 1280x720 at 1.5 Mbps; audio 48 kbps; 85 % of the estimate usable. So f needs an estimate of
/// (1 500 000 + 48 000) / 0.85 ≈ 1.82 Mbps, h ≈ 645 kbps, q ≈ 233 kbps.
@Suite struct LayerPolicyTests {
    typealias P = LayerPolicy
    static let layers = [SimulcastLayer(substream: 0, width: 320, height: 180, bitrate: 150_000),
                         SimulcastLayer(substream: 1, width: 640, height: 360, bitrate: 500_000),
                         SimulcastLayer(substream: 2, width: 1280, height: 720, bitrate: 1_500_000)]

    struct Step: Sendable {
        var second: Int
        var input: P.Input
        var expected: [P.Action]
    }

    static func tick(_ second: Int, _ condition: NetworkCondition, _ estimate: Double?, layers: [SimulcastLayer] = layers,
                     fallback: Bool = true, frames: Bool = true, audioLossy: Bool = false, delivered: Double? = nil,
                     _ expected: [P.Action] = []) -> Step {
        Step(second: second, input: .interval(condition: condition, estimate: estimate, layers: layers, publisherAllowsFallback: fallback, framesDecoded: frames,
                                              audioLossy: audioLossy, delivered: delivered), expected: expected)
    }

    static func target(_ substream: Int, _ temporal: Int = 2) -> P.Target { P.Target(substream: substream, temporal: temporal) }

    /// The top layer first, then a cap that fits the middle one: down after 2 intervals, at 2 s.
    static let steppedDown: [Step] = [
        tick(0, .excellent, 3_000_000, [.configure(target(2))]),
        tick(1, .warning, 1_000_000),
        tick(2, .warning, 1_000_000, [.configure(target(1))]),
    ]

    static let cases: [(name: String, steps: [Step])] = [
        ("a cap that fits the middle layer: down after 2 intervals, up after the hold", steppedDown + [
            tick(3, .good, 3_000_000),
            tick(11, .good, 3_000_000),
            tick(12, .good, 3_000_000, [.configure(target(2))]),
        ]),
        ("an up-switch that brings the trouble back goes down after one interval and doubles the hold", steppedDown + [
            tick(12, .good, 3_000_000, [.configure(target(2))]),
            tick(13, .warning, 1_000_000, [.configure(target(1))]),   // a failed probe: undone at once
            tick(23, .good, 3_000_000),
            tick(32, .good, 3_000_000),
            tick(33, .good, 3_000_000, [.configure(target(2))]),   // 20 s after the step down
            tick(34, .warning, 1_000_000, [.configure(target(1))]),
            tick(73, .good, 3_000_000),
            tick(74, .good, 3_000_000, [.configure(target(2))]),   // 40 s
        ]),
        ("the link's last measured capacity does not fit the top layer: the step up waits twice the hold", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            tick(1, .warning, 1_000_000),                                // full at 1 Mbps: f needs ≈ 1.82 Mbps
            tick(2, .warning, 1_000_000, [.configure(target(1))]),
            tick(3, .good, nil, delivered: 600_000),                     // h alone: says nothing about more
            tick(12, .good, nil, delivered: 600_000),                    // the 10 s hold is over, not 20 s
            tick(21, .good, nil, delivered: 600_000),
            tick(22, .good, nil, delivered: 600_000, [.configure(target(2))]),
        ]),
        ("a link that carries a fifth more than its last measured capacity is free again", steppedDown + [
            tick(3, .good, nil, delivered: 1_250_000),                   // > 1.2 Mbps
            tick(12, .good, nil, delivered: 600_000, [.configure(target(2))]),
        ]),
        ("a step down 4 s after an up-switch needs two bad intervals, and still doubles the hold", steppedDown + [
            tick(12, .good, 3_000_000, [.configure(target(2))]),
            tick(16, .warning, 1_000_000),                              // 4 s after: not a failed probe's one interval
            tick(17, .warning, 1_000_000, [.configure(target(1))]),     // within the hold: doubled to 20 s
            tick(27, .good, 3_000_000),
            tick(37, .good, 3_000_000, [.configure(target(2))]),
        ]),
        ("a step down long after the up-switch waits for two bad intervals again", steppedDown + [
            tick(12, .good, 3_000_000, [.configure(target(2))]),
            tick(22, .warning, 1_000_000),                              // the hold (10 s) is over
            tick(23, .warning, 1_000_000, [.configure(target(1))]),
            tick(33, .good, 3_000_000, [.configure(target(2))]),        // the hold stayed 10 s
        ]),
        ("below the lowest layer: a warning, then audio only; probed back on the lowest layer, enabled on decoded frames", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            tick(1, .critical, 150_000),
            // Nothing fits 150 kbps (q needs ≈ 233 kbps): warned without first stepping down
            // (the pause follows; one configure, not two).
            tick(2, .critical, 150_000, [.videoDisableWarning]),
            tick(3, .critical, 150_000, [.pauseVideo, .videoDisabled(.qualityChanged)]),
            tick(7, .good, 3_000_000),                                   // the 5 s backoff is not over
            tick(8, .good, 3_000_000, [.resumeVideo(target(0))]),
            tick(9, .good, 3_000_000, frames: false),                    // no frame decoded yet
            tick(10, .good, 3_000_000),                                  // one healthy interval with frames
            tick(11, .good, 3_000_000, [.videoEnabled(.qualityChanged)]), // the second
            tick(21, .good, 3_000_000, [.configure(target(2))]),          // 10 s hold after the resume
        ]),
        ("a failed probe pauses again and doubles the backoff (at most 8 s)", [
            tick(0, .critical, 150_000, [.configure(target(0))]),
            tick(1, .critical, 150_000, [.videoDisableWarning]),
            tick(2, .critical, 150_000, [.pauseVideo, .videoDisabled(.qualityChanged)]),
            tick(7, .good, 3_000_000, [.resumeVideo(target(0))]),
            tick(8, .critical, 150_000, [.pauseVideo]),
            tick(15, .good, 3_000_000),                                  // 5 s doubled is 10, capped at 8
            tick(16, .good, 3_000_000, [.resumeVideo(target(0))]),
        ]),
        ("a probe that brings audio loss pauses again at once; audio loss from before the probe does not count", [
            tick(0, .critical, 150_000, [.configure(target(0))]),
            tick(1, .critical, 150_000, [.videoDisableWarning]),
            tick(2, .critical, 150_000, [.pauseVideo, .videoDisabled(.qualityChanged)]),
            tick(6, .good, nil),
            tick(7, .good, nil, [.resumeVideo(target(0))]),
            tick(8, .good, nil, frames: false, audioLossy: true, [.pauseVideo]),   // no estimate yet, but the audio suffers
            tick(15, .good, nil, audioLossy: true),                                 // lossy while paused (a lossy link) ...
            tick(16, .good, nil, audioLossy: true, [.resumeVideo(target(0))]),
            tick(17, .good, nil, audioLossy: true),                                 // ... so the probe is not blamed
            tick(18, .good, nil, audioLossy: true, [.videoEnabled(.qualityChanged)]),
        ]),
        ("without the fallback, nothing fitting steps down to the lowest layer with the warning", [
            tick(0, .excellent, 3_000_000, fallback: false, [.configure(target(2))]),
            tick(1, .critical, 150_000, fallback: false),
            tick(2, .critical, 150_000, fallback: false, [.videoDisableWarning, .configure(target(0))]),
            tick(3, .critical, 150_000, fallback: false),
        ]),
        ("a dip that fits nothing is no step down of its own; fitting the middle layer the next interval is", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            tick(1, .warning, 1_000_000),                                // h fits: one interval lower
            tick(2, .warning, 150_000),                                  // nothing fits: not a step down to q
            tick(3, .warning, 1_000_000, [.configure(target(1))]),       // three intervals lower, h fits
        ]),
        ("a publisher that does not allow audio fallback keeps the lowest layer, warned, until it fits", [
            tick(0, .critical, 150_000, fallback: false, [.configure(target(0))]),
            tick(1, .critical, 150_000, fallback: false, [.videoDisableWarning]),
            tick(2, .critical, 150_000, fallback: false),
            tick(3, .critical, 150_000, fallback: false),
            tick(4, .good, 3_000_000, fallback: false, [.videoDisableWarningLifted]),   // the hold keeps it on q
            tick(10, .good, 3_000_000, fallback: false, [.configure(target(2))]),
        ]),
        ("the subscriber's own switch off keeps the lowest layer too", [
            Step(second: 0, input: .preferences(LayerPreferences(audioFallbackEnabled: false)), expected: []),
            tick(0, .critical, 150_000, [.configure(target(0))]),
            tick(1, .critical, 150_000, [.videoDisableWarning]),
            tick(2, .critical, 150_000),
            tick(3, .critical, 150_000),
        ]),
        ("a warning is lifted when the lowest layer fits again", [
            tick(0, .critical, 150_000, [.configure(target(0))]),
            tick(1, .critical, 150_000, [.videoDisableWarning]),
            tick(2, .good, 300_000, [.videoDisableWarningLifted]),
        ]),
        ("the publisher turns its video off and on", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            Step(second: 1, input: .publisherVideo(false), expected: [.videoDisabled(.publisherPropertyChanged)]),
            Step(second: 1, input: .publisherVideo(false), expected: []),            // said again: nothing
            tick(2, .excellent, 3_000_000),
            Step(second: 3, input: .publisherVideo(true), expected: []),
            tick(3, .excellent, 3_000_000),
            tick(4, .excellent, 3_000_000, [.videoEnabled(.publisherPropertyChanged)]),
        ]),
        ("a layer the publisher stopped sending is not asked for again (the router fell back)", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            tick(1, .good, 3_000_000, layers: Array(layers.prefix(2))),
            tick(2, .good, 3_000_000, layers: Array(layers.prefix(2))),
            tick(30, .good, 3_000_000, layers: Array(layers.prefix(2))),
            tick(31, .good, 3_000_000, [.configure(target(2))]),          // sent again, and the hold is over
        ]),
        ("a preferred resolution and frame rate take effect at the next interval", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            Step(second: 1, input: .preferences(LayerPreferences(resolution: CallVideoDimensions(width: 640, height: 360))), expected: []),
            tick(1, .excellent, 3_000_000, [.configure(target(1))]),
            Step(second: 2, input: .preferences(LayerPreferences(resolution: CallVideoDimensions(width: 640, height: 360), frameRate: 15)), expected: []),
            tick(2, .excellent, 3_000_000, [.configure(target(1, 1))]),
            Step(second: 3, input: .preferences(LayerPreferences()), expected: []),
            tick(3, .excellent, 3_000_000, [.configure(target(2))]),
        ]),
        ("subscribeToVideo off and on", [
            tick(0, .excellent, 3_000_000, [.configure(target(2))]),
            Step(second: 1, input: .preferences(LayerPreferences(subscribeToVideo: false)), expected: [.pauseVideo, .videoDisabled(.subscriberPropertyChanged)]),
            tick(2, .excellent, 3_000_000),
            Step(second: 3, input: .preferences(LayerPreferences()), expected: [.resumeVideo(target(2))]),
            tick(4, .excellent, 3_000_000),
            tick(5, .excellent, 3_000_000, [.videoEnabled(.subscriberPropertyChanged)]),
        ]),
    ]

    @Test(arguments: cases.indices)
    func table(_ index: Int) {
        let table = Self.cases[index]
        var policy = LayerPolicy()
        for step in table.steps {
            let actions = policy.receive(step.input, now: .seconds(step.second))
            #expect(actions == step.expected, "\(table.name), at \(step.second) s")
        }
    }
}
