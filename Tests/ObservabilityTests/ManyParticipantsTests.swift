import CallScopeReplay
import CallScopeTestSupport
import Observability
import RTCStats
import Testing

/// Rooms with several publishers: each stream reads its own publisher's sender stats, and two
/// connections of one endpoint in parallel are two streams.
@Suite struct ManyParticipantsTests {
    typealias S = Synthetic

    private func inbound(_ id: String, mid: String, kind: String, at time: Double, bytes: Double) -> StatsEntry {
        S.entry(id, .inboundRTP, at: time, ["kind": kind, "mid": mid, "bytesReceived": bytes, "packetsReceived": bytes / 100, "packetsLost": 0])
    }

    private func message(_ publisher: String, sequence: Int, at time: Double, allocated: Double, estimate: Double) -> [UInt8] {
        SenderStatsMessage(sequence: sequence, timestamp: time, connectionMaxAllocatedBitrate: allocated,
                           connectionEstimatedBandwidth: estimate, publisher: PublisherID(publisher)).encoded()
    }

    private func senderStats(_ callbacks: [StatsCallback]) -> [String: SenderStats?] {
        var result: [String: SenderStats?] = [:]
        for callback in callbacks {
            if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { result[callback.stream?.rawValue ?? ""] = video.senderStats }
        }
        return result
    }

    /// Two publishers' messages on one multistream connection, both starting at sequence 1:
    /// before, one inbox per receiving endpoint dropped the second publisher's as stale and
    /// both streams showed the first publisher's bitrates.
    @Test func eachStreamReadsItsOwnPublishersSenderStats() {
        var engine = CallStatsEngine()
        let bindings = [StreamBinding(stream: "alice", publisher: "alice", mids: ["0", "1"]),
                        StreamBinding(stream: "bob", publisher: "bob", mids: ["2", "3"])]
        var last: [String: SenderStats?] = [:]
        for second in 1...3 {
            let time = Double(second) * 1000
            engine.receiveSenderStats(message("alice", sequence: second, at: time, allocated: 1_000_000, estimate: 300_000), endpoint: "subscriber", at: time - 100)
            engine.receiveSenderStats(message("bob", sequence: second, at: time, allocated: 2_000_000, estimate: 1_800_000), endpoint: "subscriber", at: time - 90)
            last = senderStats(engine.ingest(S.sample("subscriber", pc: "sub-1", at: time, [
                inbound("A0", mid: "0", kind: "audio", at: time, bytes: time),
                inbound("V1", mid: "1", kind: "video", at: time, bytes: 10 * time),
                inbound("A2", mid: "2", kind: "audio", at: time, bytes: time),
                inbound("V3", mid: "3", kind: "video", at: time, bytes: 20 * time),
            ]), streams: bindings))
        }
        #expect(last["alice"] == SenderStats(connectionMaxAllocatedBitrate: 1_000_000, connectionEstimatedBandwidth: 300_000))
        #expect(last["bob"] == SenderStats(connectionMaxAllocatedBitrate: 2_000_000, connectionEstimatedBandwidth: 1_800_000))
        #expect(engine.senderStatsCounts(endpoint: "subscriber", publisher: "alice") == SenderStatsCounts(accepted: 3, dropped: 0))
        #expect(engine.senderStatsCounts(endpoint: "subscriber", publisher: "bob") == SenderStatsCounts(accepted: 3, dropped: 0))
    }

    /// A stale message from one publisher is dropped without touching the other's sequence.
    @Test func stalenessIsPerPublisher() {
        var engine = CallStatsEngine()
        engine.receiveSenderStats(message("alice", sequence: 5, at: 1000, allocated: 1, estimate: 1), endpoint: "subscriber", at: 1000)
        engine.receiveSenderStats(message("bob", sequence: 1, at: 1000, allocated: 1, estimate: 1), endpoint: "subscriber", at: 1001)
        engine.receiveSenderStats(message("alice", sequence: 4, at: 2000, allocated: 1, estimate: 1), endpoint: "subscriber", at: 2000)
        #expect(engine.senderStatsCounts(endpoint: "subscriber", publisher: "alice") == SenderStatsCounts(accepted: 1, dropped: 1))
        #expect(engine.senderStatsCounts(endpoint: "subscriber", publisher: "bob") == SenderStatsCounts(accepted: 1, dropped: 0))
    }

    /// Two connections of one endpoint at the same time, one video stream each: before, both
    /// were stream "" and the bytes went 10000 → 10500 → 21000.
    @Test func parallelConnectionsBoundToTheirStreamsStayApart() {
        var engine = CallStatsEngine()
        var bytes: [String: [UInt64]] = [:]
        for second in 1...3 {
            let time = Double(second) * 1000
            for (connection, stream, base) in [("pc-a", "a", 10_000.0), ("pc-b", "b", 500.0)] {
                for callback in engine.ingest(S.sample("subscriber", pc: connection, at: time + (stream == "b" ? 5 : 0), [
                    inbound("IT-\(stream)", mid: "0", kind: "video", at: time, bytes: base * Double(second)),
                ]), streams: [StreamBinding(stream: StreamID(stream))]) {
                    if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { bytes[callback.stream?.rawValue ?? "", default: []].append(video.videoBytesReceived) }
                }
            }
        }
        #expect(bytes["a"] == [10_000, 20_000, 30_000])
        #expect(bytes["b"] == [500, 1_000, 1_500])
    }

    /// A replay infers the same from the recording: overlapping connections are parallel
    /// streams, a connection that starts after another ended continues its stream.
    @Test func replayTellsParallelConnectionsFromReplacements() {
        var items: [TimelineItem] = []
        func add(_ connection: String, _ second: Int, bytes: Double) {
            let time = Double(second) * 1000
            items.append(.sample(S.sample("subscriber", pc: connection, at: time, [inbound("IT-\(connection)", mid: "0", kind: "video", at: time, bytes: bytes)])))
        }
        for second in 1...3 {
            add("pc-a", second, bytes: 10_000 * Double(second))
            add("pc-b", second, bytes: 500 * Double(second))
        }
        add("pc-c", 5, bytes: 1_000)    // starts after pc-a and pc-b ended: replaces one of them
        var last: [String: UInt64] = [:]
        for callback in ReplayDriver.replay(StatsTimeline(format: .recording, items: items)) {
            if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { last[callback.stream?.rawValue ?? ""] = video.videoBytesReceived }
        }
        // pc-a is the first chain (the sole stream), pc-b its own; pc-c continues pc-a's.
        #expect(last == ["": 31_000, "pc-b": 1_500])
    }

    /// A recorder writes a connection's stream list when it first sees the connection, on its own
    /// clock: the list may sort a few ms after the connection's first report. It still applies
    /// from that first report (before, the first callbacks went to the unnamed stream).
    @Test func aStreamListWrittenJustAfterTheFirstReportStillBindsIt() throws {
        let text = """
        {"format":"webrtc-stats-recording","version":1}
        {"t":1000,"peer":"bob","pc":"pc-1","report":[{"id":"IT1","type":"inbound-rtp","timestamp":1000,"kind":"video","bytesReceived":5000,"packetsReceived":5}]}
        {"t":1003,"peer":"bob","pc":"pc-1","event":"subscriber-streams","data":{"streams":[{"publisher":"alice","stream":"alice-camera"}]}}
        {"t":2000,"peer":"bob","pc":"pc-1","report":[{"id":"IT1","type":"inbound-rtp","timestamp":2000,"kind":"video","bytesReceived":9000,"packetsReceived":9}]}
        """
        let streams = ReplayDriver.replay(try StatsTimeline.read(Array(text.utf8))).compactMap { callback -> String? in
            guard case .subscriberVideoNetworkStatsUpdated = callback.event else { return nil }
            return callback.stream?.rawValue
        }
        #expect(streams == ["alice-camera", "alice-camera"])
    }

    /// Hostile `mid`s in a stream list (absurd numbers) are not identifiers of any receiver:
    /// the replay goes on, nothing traps.
    @Test func absurdMidsInAStreamListAreHarmless() throws {
        let text = """
        {"format":"webrtc-stats-recording","version":1}
        {"t":1000,"peer":"s","pc":"p","event":"subscriber-streams","data":{"streams":[{"mid":1e300,"publisher":"a"},{"mid":-1e300,"publisher":"b"},{"mid":1.5,"publisher":"c"}]}}
        {"t":1000,"peer":"s","pc":"p","report":[{"id":"IT1","type":"inbound-rtp","timestamp":1000,"kind":"video","mid":"1","bytesReceived":5}]}
        """
        let callbacks = ReplayDriver.replay(try StatsTimeline.read(Array(text.utf8)))
        #expect(callbacks.contains { $0.event.callbackName == "subscriber.videoNetworkStatsUpdated" })
    }
}
