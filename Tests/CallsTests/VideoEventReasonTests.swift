import Calls
import Observability
import Testing

/// One reason type for a subscriber's video events, as the reference SDK has one
/// (`OTSubscriberVideoEventReason`, seeds 000 and 004): `videoQualityChanged` and
/// `videoDisabled` / `videoEnabled` take the same type, with the seed's three reasons
/// (`publisherPropertyChanged`, `subscriberPropertyChanged`, `qualityChanged`).
@Suite struct VideoEventReasonTests {
    @Test func videoDisabledAndVideoQualityChangedShareOneReasonType() {
        #expect(CallVideoChangeReason.self == SubscriberVideoEventReason.self)
    }

    @Test(arguments: ["publisherPropertyChanged", "subscriberPropertyChanged", "qualityChanged"])
    func theSeedsReasonsAreReasonsOfVideoQualityEvents(_ name: String) {
        #expect(SubscriberVideoEventReason(rawValue: name) != nil)
    }
}
