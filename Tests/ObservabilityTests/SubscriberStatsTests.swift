import CallScopeTestSupport
import Observability
import RTCStats
import Testing

@Suite struct SubscriberStatsTests {
    typealias S = Synthetic

    private func video(_ callbacks: [StatsCallback]) -> [(String, SubscriberVideoNetworkStats)] {
        callbacks.compactMap { if case .subscriberVideoNetworkStatsUpdated(let stats) = $0.event { ($0.stream?.rawValue ?? "", stats) } else { nil } }
    }

    private func inbound(_ id: String, at time: Double, bytes: Double, frames: Double? = nil, extra: [String: Any] = [:]) -> StatsEntry {
        var fields: [String: Any] = ["kind": "video", "bytesReceived": bytes, "packetsReceived": bytes / 1000, "packetsLost": 0, "frameWidth": 640, "frameHeight": 360, "codecId": "COV"]
        if let frames { fields["framesDecoded"] = frames }
        fields.merge(extra) { $1 }
        return S.entry(id, .inboundRTP, at: time, fields)
    }

    /// Frame counter only (Safari/Firefox shape), 30 fps, then 1 s with no new frame, then 15
    /// frames in the next second: mean frame duration 1000/30 ms; the gap is
    /// max(3000 − 2000, 4000 − 2000 − 15 × 33.3) = 1500 ms ≥ max(100, 183.3) → one freeze of 1500 ms.
    @Test func freezesFallBackToTheFrameCounter() throws {
        var engine = CallStatsEngine()
        let frames: [Double] = [0, 30, 60, 60, 75, 105]
        var last: SubscriberVideoNetworkStats?
        for (index, count) in frames.enumerated() {
            let time = Double(index) * 1000
            last = video(engine.ingest(S.sample("subscriber", at: time, [S.vp8Codec(at: time), inbound("IT1", at: time, bytes: time * 100, frames: count)]))).last?.1
        }
        let stats = try #require(last)
        #expect(stats.freezeCount == 1)
        #expect(abs(stats.totalFreezesDuration - 1500) < 1e-6)
        #expect(stats.pauseCount == 0)
        #expect(stats.decodedFrameRate == 30)
        #expect(stats.codec == "VP8")
    }

    /// Six seconds without a frame (2000 → 8000 unchanged), 30 frames by 9000: the gap is
    /// max(8000 − 2000, 9000 − 2000 − 30 × 33.3) = 6000 ms > 5000 → a pause, counted when frames resume.
    @Test func pausesFallBackToTheFrameCounterAndCountWhenFramesResume() throws {
        var engine = CallStatsEngine()
        let frames: [Double] = [0, 30, 60, 60, 60, 60, 60, 60, 60, 90]
        var history: [SubscriberVideoNetworkStats] = []
        for (index, count) in frames.enumerated() {
            let time = Double(index) * 1000
            history += video(engine.ingest(S.sample("subscriber", at: time, [inbound("IT1", at: time, bytes: time * 100, frames: count)]))).map(\.1)
        }
        #expect(history[8].pauseCount == 0, "not yet: the pause is counted when the next frame renders")
        #expect(history[9].pauseCount == 1)
        #expect(abs(history[9].totalPausesDuration - 6000) < 1e-6)
        #expect(history[9].freezeCount == 0)
    }

    /// W3C counters are used as they are (seconds → ms).
    @Test func w3cFreezeAndPauseCountersAreUsedWhenPresent() throws {
        var engine = CallStatsEngine()
        let stats = try #require(video(engine.ingest(S.sample("subscriber", at: 1000, [inbound("IT1", at: 1000, bytes: 1000, frames: 30, extra: ["freezeCount": 2, "totalFreezesDuration": 0.75, "pauseCount": 1, "totalPausesDuration": 6.5])]))).first?.1)
        #expect(stats.freezeCount == 2)
        #expect(stats.totalFreezesDuration == 750)
        #expect(stats.pauseCount == 1)
        #expect(stats.totalPausesDuration == 6500)
    }

    /// 125 000 + 2 500 header bytes in one second.
    @Test func subscriberBitratesIncludeHeadersInTheTotal() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample("subscriber", at: 1000, [inbound("IT1", at: 1000, bytes: 0, extra: ["headerBytesReceived": 0])]))
        let stats = try #require(video(engine.ingest(S.sample("subscriber", at: 2000, [inbound("IT1", at: 2000, bytes: 125_000, extra: ["headerBytesReceived": 2_500])]))).first?.1)
        #expect(stats.bitrate == 1_000_000)
        #expect(stats.totalBitrate == 1_020_000)
    }

    /// An SFU receive connection carrying two publishers gives two subscribers; audio joins the
    /// video whose mid follows it.
    @Test func severalRemoteStreamsOnOneConnectionAreSeveralSubscribers() throws {
        var engine = CallStatsEngine()
        let time = 1000.0
        let callbacks = engine.ingest(S.sample("subscriber", at: time, [
            S.entry("ITa0", .inboundRTP, at: time, ["kind": "audio", "mid": "0", "bytesReceived": 10, "packetsReceived": 1]),
            inbound("ITv1", at: time, bytes: 1000, extra: ["mid": "1"]),
            S.entry("ITa2", .inboundRTP, at: time, ["kind": "audio", "mid": "2", "bytesReceived": 20, "packetsReceived": 2]),
            inbound("ITv3", at: time, bytes: 3000, extra: ["mid": "3"]),
        ]))
        #expect(video(callbacks).map(\.0) == ["mid:1", "mid:3"])
        #expect(video(callbacks).map(\.1.videoBytesReceived) == [1000, 3000])
        let audio = callbacks.compactMap { if case .subscriberAudioNetworkStatsUpdated(let stats) = $0.event { ($0.stream?.rawValue ?? "", stats.audioBytesReceived) } else { nil } }
        #expect(audio.map(\.0) == ["mid:1", "mid:3"])
        #expect(audio.map(\.1) == [10, 20])
    }

    /// Legacy `stream` entries name the streams (old Chrome).
    @Test func legacyStreamEntriesGroupTracks() throws {
        var engine = CallStatsEngine()
        let time = 1000.0
        let callbacks = engine.ingest(S.sample("subscriber", at: time, [
            S.entry("RTCMediaStream_A", .stream, at: time, ["streamIdentifier": "alice", "trackIds": ["TR1", "TR2"]]),
            S.entry("RTCMediaStream_B", .stream, at: time, ["streamIdentifier": "bob", "trackIds": ["TR3"]]),
            inbound("IT1", at: time, bytes: 100, extra: ["trackId": "TR1"]),
            S.entry("IT2", .inboundRTP, at: time, ["kind": "audio", "trackId": "TR2", "bytesReceived": 7]),
            inbound("IT3", at: time, bytes: 300, extra: ["trackId": "TR3"]),
        ]))
        #expect(video(callbacks).map(\.0) == ["alice", "bob"])
    }

    /// The stream survives a new receive connection: totals continue, startTime stays.
    @Test func aSubscriberKeepsItsTotalsAcrossConnectionReplacement() throws {
        var engine = CallStatsEngine()
        _ = engine.ingest(S.sample("subscriber", pc: "sub-1", at: 1000, [inbound("ITx", at: 1000, bytes: 10_000, frames: 30)]))
        _ = engine.ingest(S.sample("subscriber", pc: "sub-1", at: 2000, [inbound("ITx", at: 2000, bytes: 20_000, frames: 60)]))
        let replaced = try #require(video(engine.ingest(S.sample("subscriber", pc: "sub-2", at: 3000, [inbound("ITy", at: 3000, bytes: 5_000, frames: 20)]))).first?.1)
        #expect(replaced.videoBytesReceived == 25_000)
        #expect(replaced.startTime == 1000)
        #expect(replaced.bitrate == 0)
    }
}
