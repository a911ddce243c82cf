import CallScopeTestSupport
import Observability
import RTCStats
import Testing

/// Counters on real captures that once gave wrong answers: a reset without an id change, a
/// layer or stream that appears in a running connection, a candidate-pair switch.
@Suite struct CounterEdgeTests {
    typealias S = Synthetic

    private func layers(_ callbacks: [StatsCallback]) -> [PublisherVideoLayerStats]? {
        for callback in callbacks { if case .publisherVideoNetworkStatsUpdated(let links) = callback.event { return links.first?.videoLayers } }
        return nil
    }

    /// A Google Meet capture reset `bytesSent` under the same id: the layer must not vanish for
    /// one poll, and no `layersChanged` event may fire.
    @Test func aCounterResetIsNotALayerChange() {
        var engine = CallStatsEngine()
        var events: [PublisherVideoEventReason] = []
        var counts: [Int] = []
        for (second, bytes) in [(1, 10_000.0), (2, 60_000), (3, 110_000), (4, 5_000), (5, 55_000), (6, 105_000)] {
            let time = Double(second) * 1000
            let callbacks = engine.ingest(S.sample(at: time, [
                S.videoLayer("OTq", at: time, rid: "q", width: 320, height: 180, bytesSent: bytes),
                S.videoLayer("OTf", at: time, rid: "f", width: 1280, height: 720, bytesSent: 10 * bytes),
            ]))
            counts.append(layers(callbacks)?.count ?? -1)
            for callback in callbacks { if case .publisherVideoQualityChanged(_, let reason) = callback.event { events.append(reason) } }
        }
        #expect(counts == [2, 2, 2, 2, 2, 2])
        #expect(!events.contains(.layersChanged))
    }

    /// A layer that starts in a running connection: its first interval's rate is its first
    /// value against zero over the interval since the connection's previous report
    /// (8 × 25 000 B / 1 s = 200 kbps), as its total already counts those bytes.
    @Test func aNewLayerInARunningConnectionHasAFirstRate() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample(at: 1000, [S.videoLayer("OTq", at: 1000, rid: "q", width: 320, height: 180, bytesSent: 10_000)]))
        let second = try #require(layers(engine.ingest(S.sample(at: 2000, [
            S.videoLayer("OTq", at: 2000, rid: "q", width: 320, height: 180, bytesSent: 20_000),
            S.videoLayer("OTh", at: 2000, rid: "h", width: 640, height: 360, bytesSent: 25_000),
        ]))))
        #expect(second.map(\.bitrate) == [80_000, 200_000])
    }

    /// The same for a subscriber stream that appears on a multistream connection already running.
    @Test func aNewStreamInARunningConnectionHasAFirstRate() {
        var engine = CallStatsEngine()
        func inbound(_ id: String, mid: String, at time: Double, bytes: Double) -> StatsEntry {
            S.entry(id, .inboundRTP, at: time, ["kind": "video", "mid": mid, "bytesReceived": bytes, "packetsReceived": bytes / 1000, "packetsLost": 0])
        }
        let bindings = [StreamBinding(stream: "a", mids: ["1"]), StreamBinding(stream: "b", mids: ["3"])]
        _ = engine.ingest(S.sample("subscriber", at: 1000, [inbound("V1", mid: "1", at: 1000, bytes: 50_000)]), streams: bindings)
        var rates: [String: Double] = [:]
        for callback in engine.ingest(S.sample("subscriber", at: 2000, [inbound("V1", mid: "1", at: 2000, bytes: 100_000), inbound("V3", mid: "3", at: 2000, bytes: 12_500)]), streams: bindings) {
            if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { rates[callback.stream?.rawValue ?? ""] = video.bitrate }
        }
        #expect(rates == ["a": 400_000, "b": 100_000])
    }

    /// A real capture reported 35.8 Mb/s for a minute after a candidate-pair switch, where Chrome
    /// measured ≤ 0.6 Mb/s: the new pair's counter was read as a continuation of the old one.
    @Test func aCandidatePairSwitchStartsANewCounter() {
        var engine = CallStatsEngine()
        var estimates: [Double] = []
        for second in 1...6 {
            let time = Double(second) * 1000
            // 500 kbps on both pairs; the second pair's counter is far higher (it carried
            // another path's traffic before).
            let pair = second <= 3 ? "CP-old" : "CP-new"
            let bytes = second <= 3 ? 62_500 * Double(second) : 4_000_000 + 62_500 * Double(second)
            let callbacks = engine.ingest(S.sample("subscriber", at: time, [
                S.entry("IT1", .inboundRTP, at: time, ["kind": "video", "bytesReceived": 60_000 * Double(second), "packetsReceived": 60 * Double(second), "packetsLost": 0]),
                S.entry("T", .transport, at: time, ["selectedCandidatePairId": pair]),
                S.entry(pair, .candidatePair, at: time, ["bytesReceived": bytes, "state": "succeeded", "nominated": true]),
            ]))
            for callback in callbacks { if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { estimates.append(link.transport.connectionEstimatedBandwidth) } }
        }
        #expect(estimates.count == 6)
        #expect(estimates.allSatisfy { $0 <= 500_000 }, "never the jump between the two counters: \(estimates)")
        #expect(estimates.last == 500_000)
    }
}
