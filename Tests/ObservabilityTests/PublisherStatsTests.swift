import CallScopeTestSupport
import Observability
import RTCStats
import Testing

@Suite struct PublisherStatsTests {
    typealias S = Synthetic

    private func videoStats(_ callbacks: [StatsCallback]) -> [PublisherVideoNetworkStats]? {
        for callback in callbacks { if case .publisherVideoNetworkStatsUpdated(let stats) = callback.event { return stats } }
        return nil
    }

    /// 125 000 payload bytes and 5 000 header bytes in 1 s: 1 000 000 bps and 1 040 000 bps.
    @Test func bitrateIsEightTimesTheByteDeltaOverTheReportInterval() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.vp8Codec(at: 1000), S.videoLayer("OT1", at: 1000, rid: "f", width: 1280, height: 720, bytesSent: 10_000, headerBytesSent: 1_000, framesEncoded: 30)]))
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 2000, [S.vp8Codec(at: 2000), S.videoLayer("OT1", at: 2000, rid: "f", width: 1280, height: 720, bytesSent: 135_000, headerBytesSent: 6_000, framesEncoded: 60)]))))
        let layer = try #require(stats.first?.videoLayers.first)
        #expect(layer.bitrate == 1_000_000)
        #expect(layer.totalBitrate == 1_040_000)
        #expect(layer.encodedFrameRate == 30, "30 frames in 1 s without framesPerSecond")
        #expect(layer.codec == "VP8")
        #expect(stats.first?.videoBytesSent == 135_000)
    }

    /// The interval comes from the entries' timestamps (500 ms here), not the sample's `t`.
    @Test func ratesUseReportTimestampsNotTheSampleClock() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 0)]))
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 3000, [S.videoLayer("OT1", at: 1500, rid: nil, width: 640, height: 360, bytesSent: 50_000)]))))
        #expect(stats[0].videoLayers[0].bitrate == 800_000)
    }

    @Test func layersAreOrderedLowToHighWhateverTheReportOrder() throws {
        func layers(_ time: Double, _ bytes: Double) -> [StatsEntry] {
            [S.videoLayer("OTf", at: time, rid: "f", width: 1280, height: 720, bytesSent: bytes * 4),
             S.videoLayer("OTq", at: time, rid: "q", width: 320, height: 180, bytesSent: bytes),
             S.videoLayer("OTh", at: time, rid: "h", width: 640, height: 360, bytesSent: bytes * 2)]
        }
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, layers(1000, 1000)))
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 2000, layers(2000, 2000)))))
        #expect(stats[0].videoLayers.map(\.height) == [180, 360, 720])
        #expect(stats[0].videoLayers.map(\.rid) == ["q", "h", "f"])
        #expect(stats[0].videoLayers.map(\.bitrate) == [8000, 16000, 32000])
    }

    @Test func aLayerThatStopsSendingLeavesTheListAndMarksLayerChange() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OTq", at: 1000, rid: "q", width: 320, height: 180, bytesSent: 100), S.videoLayer("OTf", at: 1000, rid: "f", width: 1280, height: 720, bytesSent: 100)]))
        _ = engine.ingest(S.sample(at: 2000, [S.videoLayer("OTq", at: 2000, rid: "q", width: 320, height: 180, bytesSent: 200), S.videoLayer("OTf", at: 2000, rid: "f", width: 1280, height: 720, bytesSent: 200)]))
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 3000, [S.videoLayer("OTq", at: 3000, rid: "q", width: 320, height: 180, bytesSent: 300), S.videoLayer("OTf", at: 3000, rid: "f", width: 1280, height: 720, bytesSent: 200, extra: ["active": false])]))))
        #expect(stats[0].videoLayers.map(\.rid) == ["q"])
        #expect(stats[0].videoLayers[0].qualityLimitationReason == .layerChange)
        #expect(stats[0].videoFrameRate == stats[0].videoLayers[0].encodedFrameRate)
    }

    @Test(arguments: [("bandwidth", QualityLimitationReason.bandwidth), ("cpu", .cpu), ("other", .other), ("none", .none)])
    func w3cLimitationReasonsMapDirectly(w3c: String, expected: QualityLimitationReason) throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 100, extra: ["qualityLimitationReason": w3c])]))
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 2000, [S.videoLayer("OT1", at: 2000, rid: nil, width: 640, height: 360, bytesSent: 200, extra: ["qualityLimitationReason": w3c])]))))
        #expect(stats[0].videoLayers[0].qualityLimitationReason == expected)
    }

    @Test func resolutionAndCodecChangesAreDerived() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 100, extra: ["qualityLimitationResolutionChanges": 1, "qualityLimitationReason": "none"])]))
        let resized = try #require(videoStats(engine.ingest(S.sample(at: 2000, [S.videoLayer("OT1", at: 2000, rid: nil, width: 480, height: 270, bytesSent: 200, extra: ["qualityLimitationResolutionChanges": 2, "qualityLimitationReason": "none"])]))))
        #expect(resized[0].videoLayers[0].qualityLimitationReason == .resolution)
        let recoded = try #require(videoStats(engine.ingest(S.sample(at: 3000, [S.videoLayer("OT1", at: 3000, rid: nil, width: 480, height: 270, bytesSent: 300, extra: ["qualityLimitationResolutionChanges": 2, "codecId": "COH"])]))))
        #expect(recoded[0].videoLayers[0].qualityLimitationReason == .codec)
    }

    /// A counter that goes backwards without an id change yields no rate for that interval, and
    /// the totals neither drop nor jump.
    @Test func aCounterResetYieldsNoRateAndKeepsTotalsMonotonic() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 50_000)]))
        _ = engine.ingest(S.sample(at: 2000, [S.videoLayer("OT1", at: 2000, rid: nil, width: 640, height: 360, bytesSent: 100_000)]))
        let reset = try #require(videoStats(engine.ingest(S.sample(at: 3000, [S.videoLayer("OT1", at: 3000, rid: nil, width: 640, height: 360, bytesSent: 1_000, extra: ["active": true])]))))
        #expect(reset[0].videoBytesSent == 100_000)
        // The layer still sends (a reset is not a layer change), with no rate for that interval.
        #expect(reset[0].videoLayers.map(\.bitrate) == [0])
        let after = try #require(videoStats(engine.ingest(S.sample(at: 4000, [S.videoLayer("OT1", at: 4000, rid: nil, width: 640, height: 360, bytesSent: 26_000)]))))
        #expect(after[0].videoBytesSent == 125_000)
        #expect(after[0].videoLayers[0].bitrate == 200_000)
    }

    /// A replaced peer connection: its counters restart at zero; totals carry on from the old
    /// connection's last values, the first interval of the new one has no rate, startTime stays.
    @Test func peerConnectionReplacementKeepsTotalsContinuous() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(pc: "pc-1", at: 1000, [S.videoLayer("OTa", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 10_000, packetsSent: 10)]))
        let old = try #require(videoStats(engine.ingest(S.sample(pc: "pc-1", at: 2000, [S.videoLayer("OTa", at: 2000, rid: nil, width: 640, height: 360, bytesSent: 20_000, packetsSent: 20)]))))
        let new = try #require(videoStats(engine.ingest(S.sample(pc: "pc-2", at: 3000, [S.videoLayer("OTb", at: 3000, rid: nil, width: 640, height: 360, bytesSent: 4_000, packetsSent: 4)]))))
        let later = try #require(videoStats(engine.ingest(S.sample(pc: "pc-2", at: 4000, [S.videoLayer("OTb", at: 4000, rid: nil, width: 640, height: 360, bytesSent: 14_000, packetsSent: 14)]))))
        #expect(old[0].videoBytesSent == 20_000)
        #expect(new[0].videoBytesSent == 24_000)
        #expect(later[0].videoBytesSent == 34_000)
        #expect(later[0].videoPacketsSent == 34)
        #expect(new[0].videoLayers[0].bitrate == 0)
        #expect(later[0].videoLayers[0].bitrate == 80_000)
        #expect(later[0].startTime == 1000)
        #expect(new.count == 1 && new[0].connectionId.isEmpty, "routed: one element, empty ids")
    }

    @Test func aNonIncreasingTimestampIsIgnoredAndAGapGivesNoRate() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 1_000)]))
        #expect(engine.ingest(S.sample(at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 2_000)])).isEmpty)
        let afterGap = try #require(videoStats(engine.ingest(S.sample(at: 5000, [S.videoLayer("OT1", at: 5000, rid: nil, width: 640, height: 360, bytesSent: 50_000)]))))
        #expect(afterGap[0].videoBytesSent == 50_000)
        #expect(afterGap[0].videoLayers[0].bitrate == 0, "4 s > 3 × interval: no rate")
    }

    /// Relayed: one element per subscriber connection, named by the connection.
    @Test func relayedPublishersReportOneElementPerSubscriber() throws {
        var engine = CallStatsEngine(sessionModes: ["publisher": .relayed])
        _ = engine.ingest(S.sample(pc: "to-alice", at: 1000, [S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 1_000)]))
        let both = try #require(videoStats(engine.ingest(S.sample(pc: "to-bob", at: 1010, [S.videoLayer("OT1", at: 1010, rid: nil, width: 640, height: 360, bytesSent: 3_000)]))))
        #expect(both.map(\.connectionId) == ["to-alice", "to-bob"])
        #expect(both.map(\.videoBytesSent) == [1_000, 3_000])
    }

    /// Packets lost come from the remote-inbound-rtp entry that describes each video SSRC.
    @Test func lostPacketsComeFromRemoteInbound() throws {
        var engine = CallStatsEngine()
        let stats = try #require(videoStats(engine.ingest(S.sample(at: 1000, [
            S.videoLayer("OTq", at: 1000, rid: "q", width: 320, height: 180, bytesSent: 100),
            S.videoLayer("OTf", at: 1000, rid: "f", width: 1280, height: 720, bytesSent: 100),
            S.entry("RIq", .remoteInboundRTP, at: 1000, ["kind": "video", "localId": "OTq", "packetsLost": 3]),
            S.entry("RIf", .remoteInboundRTP, at: 1000, ["kind": "video", "localId": "OTf", "packetsLost": 4]),
        ]))))
        #expect(stats[0].videoPacketsLost == 7)
    }

    @Test func theUplinkEstimateIsTheSelectedPairsAvailableOutgoingBitrate() throws {
        var engine = CallStatsEngine()
        let callbacks = engine.ingest(S.sample(at: 1000, [
            S.videoLayer("OT1", at: 1000, rid: nil, width: 640, height: 360, bytesSent: 100),
            S.entry("T1", .transport, at: 1000, ["selectedCandidatePairId": "CP2"]),
            S.entry("CP1", .candidatePair, at: 1000, ["availableOutgoingBitrate": 100_000]),
            S.entry("CP2", .candidatePair, at: 1000, ["availableOutgoingBitrate": 2_500_000]),
        ]))
        let link = callbacks.compactMap { if case .publisherMediaLinkStatsUpdated(let links) = $0.event { links.first } else { nil } }.first
        #expect(link?.transport.connectionEstimatedBandwidth == 2_500_000)
    }
}
