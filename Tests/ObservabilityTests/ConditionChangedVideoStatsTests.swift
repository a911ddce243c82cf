import Observability
import Testing

/// The video stats of `networkConditionChanged(videoStats:audioStats:reason:)` carry the media
/// link as seed 000's handler reads it: `videoStats.transport?.networkCondition`,
/// `videoStats.remotePublisherTransport?.networkCondition`, `videoStats.networkDegradationSource`;
/// the periodic video stats do not (they come before their sample's media link).
@Suite struct ConditionChangedVideoStatsTests {
    @Test func theVideoStatsCarryTheMediaLinkOfTheChange() throws {
        let recorder = ConditionChangedFormsTests.Recorder()
        ConditionChangedFormsTests.feed(recorder)
        #expect(!recorder.statsForm.isEmpty)
        for (index, change) in zip(recorder.statsForm, recorder.mediaLinkForm).enumerated() {
            let mediaLink = change.1.0
            #expect(change.0.video.mediaLink == mediaLink, "change \(index)")
            #expect(change.0.video.transport?.networkCondition == mediaLink.transport.networkCondition, "change \(index)")
            #expect(change.0.video.remotePublisherTransport?.networkCondition == .unknown, "no sender stats: change \(index)")
            #expect(change.0.video.networkDegradationSource == mediaLink.networkDegradationSource, "change \(index)")
        }
        #expect(recorder.statsForm.contains { $0.video.transport?.networkCondition == .critical })
        #expect(recorder.lastVideo?.mediaLink == nil)
        #expect(recorder.lastVideo?.networkDegradationSource == .unknown)
    }
}
