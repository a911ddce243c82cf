import CallScopeTestSupport
import Observability
import RTCStats
import Testing

/// Unknown is not zero: a rate needs two readings of a counter less than a gap (3 intervals)
/// apart, an estimate a report that has one or a received rate to measure it from. Without them
/// the field reads 0 and `unmeasured` names it; a real zero (nothing arrived between two
/// readings) has an empty `unmeasured`. Hand-worked: 100 bytes per ms is 800 000 bps.
@Suite struct UnmeasuredValuesTests {
    typealias S = Synthetic

    static func subscriberReport(at time: Double, bytes: Double, frames: Double) -> [StatsEntry] {
        [S.entry("IV", .inboundRTP, at: time, ["kind": "video", "ssrc": 11, "bytesReceived": bytes, "packetsReceived": bytes / 1000, "packetsLost": 0,
                                                "framesDecoded": frames, "frameWidth": 640, "frameHeight": 360]),
         S.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
         S.entry("CP", .candidatePair, at: time, ["bytesReceived": bytes, "state": "succeeded", "nominated": true])]
    }

    static func subscriberSamples(_ times: [(time: Double, bytes: Double, frames: Double)]) -> [(SubscriberVideoNetworkStats, SubscriberMediaLinkStats)] {
        var engine = CallStatsEngine()
        var out: [(SubscriberVideoNetworkStats, SubscriberMediaLinkStats)] = []
        for sample in times {
            var video: SubscriberVideoNetworkStats?, link: SubscriberMediaLinkStats?
            for callback in engine.ingest(S.sample("subscriber", at: sample.time, subscriberReport(at: sample.time, bytes: sample.bytes, frames: sample.frames))) {
                if case .subscriberVideoNetworkStatsUpdated(let stats) = callback.event { video = stats }
                if case .subscriberMediaLinkStatsUpdated(let stats) = callback.event { link = stats }
            }
            if let video, let link { out.append((video, link)) }
        }
        return out
    }

    @Test func aSubscribersFirstSampleAndASampleAfterAGapAreUnmeasuredAndARealZeroIsNot() throws {
        // 0 s, 1 s (100 000 bytes, 30 frames), 2 s (nothing new: a real zero), 7 s (a 5 s gap).
        let samples = Self.subscriberSamples([(0, 0, 0), (1000, 100_000, 30), (2000, 100_000, 30), (7000, 600_000, 180)])
        try #require(samples.count == 4)
        #expect(samples[0].0.bitrate == 0)
        #expect(samples[0].0.unmeasured == [.bitrate, .frameRate])
        #expect(samples[0].1.transport.unmeasured == .estimatedBandwidth)
        #expect(samples[0].1.transport.connectionEstimatedBandwidth == 0)
        #expect(samples[1].0.bitrate == 800_000)
        #expect(samples[1].0.decodedFrameRate == 30)
        #expect(samples[1].0.unmeasured.isEmpty)
        #expect(samples[1].1.transport.connectionEstimatedBandwidth == 800_000)
        #expect(samples[1].1.transport.unmeasured.isEmpty)
        #expect(samples[2].0.bitrate == 0)
        #expect(samples[2].0.decodedFrameRate == 0)
        #expect(samples[2].0.unmeasured.isEmpty, "nothing arrived: a measured zero")
        #expect(samples[3].0.bitrate == 0)
        #expect(samples[3].0.unmeasured == [.bitrate, .frameRate], "5 s since the last reading: no rate")
    }

    @Test func aPublishersFirstLayerRatesAndAMissingUplinkEstimateAreUnmeasured() throws {
        var engine = CallStatsEngine()
        var videos: [PublisherVideoNetworkStats] = []
        for time in [0.0, 1000] {
            for callback in engine.ingest(S.sample(at: time, [S.videoLayer("OT1", at: time, rid: "f", width: 640, height: 360, bytesSent: time * 100 + 1000,
                                                                          framesEncoded: time * 0.03 + 1)])) {
                if case .publisherVideoNetworkStatsUpdated(let stats) = callback.event { videos += stats }
            }
        }
        try #require(videos.count == 2)
        let first = try #require(videos[0].videoLayers.first), second = try #require(videos[1].videoLayers.first)
        #expect(first.unmeasured == [.bitrate, .frameRate])
        #expect(videos[0].unmeasured == .frameRate)
        #expect(second.unmeasured.isEmpty)
        #expect(second.bitrate == 800_000)
        #expect(second.encodedFrameRate == 30)
        #expect(videos[1].unmeasured.isEmpty)
        // No candidate pair, so no `availableOutgoingBitrate`: unknown, not 0 bps.
        #expect(videos[1].transport.unmeasured == .estimatedBandwidth)
    }

    @Test func senderStatsWithoutAnEstimateSayItIsUnmeasured() {
        let without = SenderStatsMessage(sequence: 1, timestamp: 1, connectionMaxAllocatedBitrate: 2_214_000, connectionEstimatedBandwidth: nil)
        let with = SenderStatsMessage(sequence: 1, timestamp: 1, connectionMaxAllocatedBitrate: 2_214_000, connectionEstimatedBandwidth: 0)
        #expect(without.senderStats.unmeasured == .estimatedBandwidth)
        #expect(without.senderStats.connectionEstimatedBandwidth == 0)
        #expect(with.senderStats.unmeasured.isEmpty)
        #expect(TransportStats.unknown.unmeasured == .estimatedBandwidth)
    }
}
