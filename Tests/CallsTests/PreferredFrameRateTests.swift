@testable import Calls
import Observability
import Testing

/// `preferredFrameRate` (docs/spec/sessions.md §4): the router forwards the highest temporal
/// layer not above the preference. With L1T3 each layer below the top halves the rate: a 30 fps
/// publisher sends 7.5, 15 and 30 fps, a 15 fps one 3.75, 7.5 and 15. Until the publisher's real
/// rate is known the top is taken as 30 fps. Expected layers by hand from those rates; a rate
/// within 1 frame/s above the preference still counts as not above it (measuring noise).
@Suite struct PreferredFrameRateTests {
    static let layers = LayerPolicyTests.layers

    /// (preference, temporal layer expected of a 30 fps publisher whose rate is not measured yet).
    static let thirtyFrames: [(Double, Int)] = [
        (30, 2),     // 30 ≤ 30
        (20, 1),     // 30 > 20, 15 ≤ 20
        (15, 1),     // 15 ≤ 15
        (10, 0),     // 15 > 10, 7.5 ≤ 10
        (7.5, 0),    // 7.5 ≤ 7.5
        (5, 0),      // every layer is above 5: the lowest, the router can send no fewer frames
    ]

    /// The layer asked for never carries more frames than the preference.
    @Test(arguments: thirtyFrames)
    func theTemporalLayerIsNeverAboveThePreference(preference: Double, expected: Int) {
        var policy = LayerPolicy(preferences: LayerPreferences(frameRate: preference))
        let actions = policy.receive(.interval(condition: .excellent, estimate: 3_000_000, layers: Self.layers, publisherAllowsFallback: true, framesDecoded: true),
                                     now: .seconds(0))
        #expect(actions == [.configure(LayerPolicy.Target(substream: 2, temporal: expected))], "preference \(preference) fps")
    }

    /// A 15 fps publisher (the rig's camera): its rate is read from the subscriber's decoded
    /// frames, 15 a second on the top temporal layer. Asking 15 of it keeps the top layer (15
    /// fps, not 7.5); asking 7.5 takes the middle one (7.5); asking 5 the lowest (3.75).
    @Test func aFifteenFramePublisherIsAskedForItsRealLayers() {
        var feed = SubscriberAdaptationTests.Feed()
        func configures(_ outputs: [SubscriberAdaptation.Output]) -> [SubscriberAdaptation.Output] {
            outputs.filter { if case .configure = $0 { true } else { false } }
        }
        #expect(configures(feed.interval(rate: 1_700_000, frames: 15)) == [SubscriberAdaptationTests.configure(2, 2)])
        #expect(configures(feed.interval(rate: 1_700_000, frames: 15)) == [])
        feed.preferences.frameRate = 15
        #expect(configures(feed.interval(rate: 1_700_000, frames: 15)) == [])     // 15 fps is the top layer's
        #expect(configures(feed.interval(rate: 1_700_000, frames: 15)) == [])
        feed.preferences.frameRate = 7.5
        #expect(configures(feed.interval(rate: 1_700_000, frames: 15)) == [SubscriberAdaptationTests.configure(2, 1)])
        #expect(configures(feed.interval(rate: 1_700_000, frames: 7.5)) == [])
        #expect(configures(feed.interval(rate: 1_700_000, frames: 7.5)) == [])   // 7.5 on the middle layer: still 15 in full
        feed.preferences.frameRate = 5
        #expect(configures(feed.interval(rate: 1_700_000, frames: 7.5)) == [SubscriberAdaptationTests.configure(2, 0)])
    }
}
