@testable import Calls
import Observability
import RTCStats
import Testing

/// The layer policy's feed, from a real ``SubscriberStatsMonitor``: synthetic reports one per
/// second (the connection's received bytes, the video's packet counters and decoded frames) and
/// the publisher's sender stats (q 320x180 at 150 kbps, h 640x360 at 500 kbps, f 1280x720 at
/// 1.5 Mbps). Expected values by hand: h needs an estimate of (500 000 + 48 000) / 0.85 ≈
/// 645 kbps, f ≈ 1.82 Mbps; the link counts as full at ≥ 2 % video loss, or below 80 % of what
/// it delivered on the forwarded layer while healthy (after 1.7 Mbps on f: 1.36 Mbps).
@Suite struct SubscriberAdaptationTests {
    static let allLayers = [SenderStatsMessage.Layer(width: 320, height: 180, bitrate: 150_000, rid: "q"),
                            SenderStatsMessage.Layer(width: 640, height: 360, bitrate: 500_000, rid: "h"),
                            SenderStatsMessage.Layer(width: 1280, height: 720, bitrate: 1_500_000, rid: "f")]
    static let start = 1_800_000_000_000.0

    /// One subscriber: a monitor, the adaptation, and the running counters of its reports.
    struct Feed {
        let monitor = SubscriberStatsMonitor(stream: StreamID("7"), publisher: PublisherID("7"))
        var adaptation = SubscriberAdaptation()
        var second = 0
        var pairBytes = 0.0
        var videoReceived = 0.0, videoLost = 0.0, framesDecoded = 0.0
        var sequence = 0
        var preferences = LayerPreferences()

        init() { adaptation.videoMid = "1" }

        /// One interval: the link carried `rate` bps, the video lost `loss` of its 100 packets,
        /// decoded `frames` frames; the publisher's latest message lists `layers`.
        mutating func interval(rate: Double, loss: Double = 0, frames: Double = 15, layers: [SenderStatsMessage.Layer] = SubscriberAdaptationTests.allLayers,
                               videoEnabled: Bool? = true, frame: (width: Int, height: Int)? = nil) -> [SubscriberAdaptation.Output] {
            second += 1
            let time = SubscriberAdaptationTests.start + Double(second) * 1000
            pairBytes += rate / 8
            videoLost += (100 * loss).rounded()
            videoReceived += 100 - (100 * loss).rounded()
            framesDecoded += frames
            sequence += 1
            let message = SenderStatsMessage(sequence: sequence, timestamp: time, connectionMaxAllocatedBitrate: 2_214_000, connectionEstimatedBandwidth: 2_000_000,
                                             layers: layers, audioFallbackEnabled: true, videoEnabled: videoEnabled)
            monitor.receiveSenderStats(message.encoded(), at: time)
            let report = SubscriberAdaptationTests.report(time: time, pairBytes: pairBytes, videoReceived: videoReceived, videoLost: videoLost, framesDecoded: framesDecoded,
                                                          frame: frame)
            let reading = monitor.read(report, peerConnection: "pc-1")
            return adaptation.interval(reading, reportTime: time, preferences: preferences, now: .seconds(second))
        }
    }

    /// A subscriber report: the selected pair's received bytes and one video receiver.
    static func report(time: Double, pairBytes: Double, videoReceived: Double, videoLost: Double, framesDecoded: Double,
                       frame: (width: Int, height: Int)? = (1280, 720)) -> StatsReport {
        StatsReport(entries: [
            StatsEntry(id: "T01", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP1"))]),
            StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                StatsField("bytesReceived", .number(pairBytes)), StatsField("state", .string("succeeded")), StatsField("nominated", .bool(true)),
            ]),
            StatsEntry(id: "IV", type: .inboundRTP, timestamp: time, fields: [
                StatsField("kind", .string("video")), StatsField("ssrc", .number(11)), StatsField("mid", .string("1")),
                StatsField("packetsReceived", .number(videoReceived)), StatsField("packetsLost", .number(videoLost)),
                StatsField("bytesReceived", .number(pairBytes * 0.9)), StatsField("framesDecoded", .number(framesDecoded)),
            ] + (frame.map { [StatsField("frameWidth", .number(Double($0.width))), StatsField("frameHeight", .number(Double($0.height)))] } ?? [])),
        ])
    }

    static func configure(_ substream: Int, _ temporal: Int = 2) -> SubscriberAdaptation.Output {
        .configure(RouterStreamConfiguration(mid: "1", substream: substream, temporal: temporal))
    }

    /// The decoded frames' size names the layer before Janus's event does (behind a capped
    /// downlink it came 10-30 s late); a late event for the layer before is not announced.
    @Test func theDecodedFramesSizeIsTheLayerChangeAndALateRouterEventIsNot() {
        var feed = Feed()
        #expect(feed.interval(rate: 1_700_000, frame: (1280, 720)) == [Self.configure(2)])            // no frame rate from one report
        #expect(feed.interval(rate: 1_700_000, frame: (1280, 720)) == [.event(.layerChanged(substream: 2, temporal: 2))])
        #expect(feed.interval(rate: 700_000, loss: 0.1, frame: (1280, 720)) == [])
        #expect(feed.interval(rate: 700_000, loss: 0.1, frame: (1280, 720)) == [Self.configure(1), .receiveLimit(.downlink)])
        #expect(feed.interval(rate: 560_000, frame: (1280, 720)) == [])                         // f's frames still: not asked for
        #expect(feed.interval(rate: 560_000, frame: (640, 360)) == [.event(.layerChanged(substream: 1, temporal: 2))])
        #expect(feed.adaptation.forwardedLayerChanged(substream: 2, temporal: nil) == [])          // the late event: above h
        #expect(feed.adaptation.forwardedLayerChanged(substream: 0, temporal: nil) == [])          // below, while h's frames decode
        #expect(feed.adaptation.forwardedLayerChanged(substream: nil, temporal: 1) == [.event(.layerChanged(substream: 1, temporal: 1))])
        #expect(feed.interval(rate: 560_000, frame: (1000, 500)) == [])                         // no layer's size: nothing
        #expect(feed.adaptation.forwardedLayerChanged(substream: 0, temporal: nil) == [.event(.layerChanged(substream: 0, temporal: 1))])  // the router's fallback
    }

    @Test func aLossyCapThatFitsTheMiddleLayerStepsDownAfterTwoIntervalsAndSaysDownlink() {
        var feed = Feed()
        #expect(feed.interval(rate: 1_700_000) == [Self.configure(2)])          // no estimate yet: the preferred layer
        #expect(feed.interval(rate: 1_700_000) == [])
        #expect(feed.interval(rate: 700_000, loss: 0.1) == [])                  // 700 kbps fits h: one bad interval
        #expect(feed.interval(rate: 700_000, loss: 0.1) == [Self.configure(1), .receiveLimit(.downlink)])
        #expect(feed.interval(rate: 560_000) == [])                             // on h, no loss: stays (10 s hold)
    }

    /// After a step down the queue still holds the old layer: two intervals of loss at a low
    /// rate (200 kbps: nothing fits, q needs ≈ 233 kbps) are not judged; then two more are, and
    /// the warning comes (the publisher allows the fallback: no step down to q first), then the
    /// pause.
    @Test func twoIntervalsAfterAStepDownAreNotJudged() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        _ = feed.interval(rate: 700_000, loss: 0.1)
        #expect(feed.interval(rate: 700_000, loss: 0.1) == [Self.configure(1), .receiveLimit(.downlink)])
        #expect(feed.interval(rate: 200_000, loss: 0.3) == [])
        #expect(feed.interval(rate: 200_000, loss: 0.3) == [])
        #expect(feed.interval(rate: 200_000, loss: 0.3) == [])
        #expect(feed.interval(rate: 200_000, loss: 0.3) == [.event(.videoDisableWarning)])
        #expect(feed.interval(rate: 200_000, loss: 0.3) == [.configure(RouterStreamConfiguration(mid: "1", send: false)),
                                                           .event(.videoDisabled(.qualityChanged)), .receiveLimit(.paused)])
    }

    @Test func aLinkThatDeliversWellBelowWhatItDidIsFullBeforeAnyLoss() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)                                      // no rate yet
        _ = feed.interval(rate: 1_700_000)                                      // f healthy at 1.7 Mbps
        // 1.0 Mbps < 1.36 Mbps on f: full, estimate 1.0 Mbps, h fits (budget 850 kbps ≥ 548 kbps);
        // the next interval loses packets: the second bad one.
        #expect(feed.interval(rate: 1_000_000) == [])
        #expect(feed.interval(rate: 1_000_000, loss: 0.05) == [Self.configure(1), .receiveLimit(.downlink)])
    }

    /// Two loss-free intervals short of the healthy rate are no full link (a publisher's rate
    /// dip): the second gives no estimate, so no step down.
    @Test func twoShortIntervalsWithoutLossAreNoStepDown() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        _ = feed.interval(rate: 1_700_000)
        #expect(feed.interval(rate: 1_000_000) == [])
        #expect(feed.interval(rate: 1_000_000) == [])
        #expect(feed.interval(rate: 1_000_000) == [])
    }

    /// A burst (a queue draining after a cap) sets a healthy rate the link never reaches again:
    /// three intervals short of it without loss re-base it, so the shortfall does not keep
    /// saying "full" on a free link. (On the lowest layer, as when it happened: preferred
    /// 320x180, so 300 kbps, which fits q, is no step down.)
    @Test func threeShortIntervalsWithoutLossRebaseTheHealthyRate() {
        var feed = Feed()
        feed.preferences = LayerPreferences(resolution: CallVideoDimensions(width: 320, height: 180))
        #expect(feed.interval(rate: 900_000) == [Self.configure(0)])            // no rate yet
        _ = feed.interval(rate: 900_000)                                        // q healthy at 900 kbps
        #expect(feed.adaptation.healthyRates[0] == 900_000)
        #expect(feed.interval(rate: 300_000) == [])                             // < 720 kbps: short, no loss (1)
        #expect(feed.interval(rate: 300_000) == [])                             // (2)
        #expect(feed.adaptation.healthyRates[0] == 900_000)
        #expect(feed.interval(rate: 300_000) == [])                             // (3): re-based
        #expect(feed.adaptation.healthyRates[0] == 300_000)
    }

    @Test func aRateAboveTheShortfallWithoutLossIsNoEstimate() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        _ = feed.interval(rate: 1_700_000)
        #expect(feed.interval(rate: 1_400_000) == [])                           // ≥ 1.36 Mbps: not full
        #expect(feed.interval(rate: 1_400_000) == [])
        #expect(feed.interval(rate: 1_400_000) == [])
    }

    /// "Do not fight the router": the publisher stops its top layer, Janus falls back to h by
    /// itself; the policy follows (no configure back to f), the limit is the publisher's, and f
    /// is asked for again only once the publisher sends it and the hold is over.
    @Test func aLayerThePublisherStoppedIsNotAskedForAgain() {
        var feed = Feed()
        #expect(feed.interval(rate: 1_700_000) == [Self.configure(2)])
        let twoLayers = Array(Self.allLayers.prefix(2))
        #expect(feed.interval(rate: 600_000, layers: twoLayers) == [.receiveLimit(.publisher)])
        #expect(feed.adaptation.forwardedLayerChanged(substream: 1, temporal: nil) == [.event(.layerChanged(substream: 1, temporal: 2))])
        for _ in 3...9 { #expect(feed.interval(rate: 600_000, layers: twoLayers) == []) }
        #expect(feed.interval(rate: 1_700_000) == [])                            // f back at 10 s: the hold since 1 s is not over (still the publisher's)
        #expect(feed.interval(rate: 1_700_000) == [Self.configure(2), .receiveLimit(.none)])
    }

    @Test func theRoutersLayerEventsAreAnnouncedOncePerChange() {
        var adaptation = SubscriberAdaptation()
        #expect(adaptation.forwardedLayerChanged(substream: 2, temporal: nil) == [.event(.layerChanged(substream: 2, temporal: 2))])
        #expect(adaptation.forwardedLayerChanged(substream: nil, temporal: 2) == [])
        #expect(adaptation.forwardedLayerChanged(substream: 1, temporal: nil) == [.event(.layerChanged(substream: 1, temporal: 2))])
        #expect(adaptation.forwardedLayerChanged(substream: nil, temporal: 0) == [.event(.layerChanged(substream: 1, temporal: 0))])
    }

    @Test func thePublishersCameraOffAndOnIsPublisherPropertyChanged() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        #expect(feed.interval(rate: 1_700_000, videoEnabled: false) == [.event(.videoDisabled(.publisherPropertyChanged))])
        #expect(feed.interval(rate: 1_700_000, videoEnabled: false) == [])
        #expect(feed.interval(rate: 1_700_000, videoEnabled: true) == [])       // frames once ...
        #expect(feed.interval(rate: 1_700_000, videoEnabled: true) == [.event(.videoEnabled(.publisherPropertyChanged))])  // ... twice
    }

    @Test func subscribeToVideoOffPausesTheMidAndSaysVideoOff() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        feed.preferences.subscribeToVideo = false
        #expect(feed.interval(rate: 1_700_000) == [.configure(RouterStreamConfiguration(mid: "1", send: false)),
                                                   .event(.videoDisabled(.subscriberPropertyChanged)), .receiveLimit(.videoOff)])
        feed.preferences.subscribeToVideo = true
        // Resumed: still off for the monitor until frames are decoded on two intervals after the next.
        #expect(feed.interval(rate: 60_000, frames: 0) == [.configure(RouterStreamConfiguration(mid: "1", send: true, substream: 2, temporal: 2))])
        #expect(feed.interval(rate: 1_700_000) == [])                           // the interval after a resume confirms nothing
        #expect(feed.interval(rate: 1_700_000) == [])
        #expect(feed.interval(rate: 1_700_000) == [.event(.videoEnabled(.subscriberPropertyChanged)), .receiveLimit(.none)])
    }

    @Test func aLowerPreferredResolutionTakesEffectAtTheNextInterval() {
        var feed = Feed()
        _ = feed.interval(rate: 1_700_000)
        feed.preferences.resolution = CallVideoDimensions(width: 640, height: 360)
        #expect(feed.interval(rate: 1_700_000) == [Self.configure(1)])           // h is what is preferred: no limit
        feed.preferences.resolution = nil
        #expect(feed.interval(rate: 600_000) == [Self.configure(2)])
    }

    @Test func theVideoMidIsTheFirstVideoSection() {
        let sdp = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=sendonly\r\na=mid:1\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n"
        #expect(SubscriberAdaptation.videoMid(in: SessionDescription(kind: .offer, sdp: sdp)) == "1")
        #expect(SubscriberAdaptation.videoMid(in: SessionDescription(kind: .offer, sdp: "v=0\r\nm=audio 9 RTP 0\r\na=mid:0\r\n")) == nil)
    }

    @Test func aLowerLayerThatClaimsMoreThanABiggerOneIsTakenAtItsShareOfThePixels() {
        let message = SenderStatsMessage(sequence: 1, timestamp: 0, connectionMaxAllocatedBitrate: 0, connectionEstimatedBandwidth: nil, layers: [
            .init(width: 960, height: 540, bitrate: 480_000), .init(width: 240, height: 135, bitrate: 790_000), .init(width: 480, height: 270, bitrate: 230_000),
            .init(width: 1920, height: 1080, bitrate: 0),
        ])
        // 240x135 claims more than 480x270: a quarter of its pixels, (1/4)^(3/4) = 0.3536 of its
        // 230 kbit/s = 81.3 kbit/s.
        let layers = SubscriberAdaptation.layers(message)
        #expect(layers.map(\.substream) == [0, 1, 2] && layers.map(\.width) == [240, 480, 960])
        #expect(abs(layers[0].bitrate - 81_317) < 1, "\(layers[0].bitrate)")
        #expect(layers[1].bitrate == 230_000 && layers[2].bitrate == 480_000)
    }
}
