import CallScopeReplay
import Observability
import RTCStats
import Testing

/// What `callscope call --record` writes for one handle per subscriber: a `subscriber-streams`
/// entry without `mid` (the connection's only stream) naming the stream, and sender-stats
/// messages without `publisher` (ours name none) on that connection.
@Suite struct RecordedBindingTests {
    private func recording(senderStatsOnConnection pc: String?) -> [UInt8] {
        var lines = [#"{"format":"webrtc-stats-recording","version":1,"interval_ms":1000,"publishers":[{"publisher":"P1","stream":"S1"}]}"#,
                     #"{"t":1000,"peer":"bob","pc":"pc-1","event":"subscriber-streams","data":{"streams":[{"publisher":"P1","stream":"S1"}]}}"#]
        for second in 0..<4 {
            let t = 1000 + 1000 * second
            if second == 2 {
                let pcKey = pc.map { ",\"pc\":\"\($0)\"" } ?? ""
                lines.append(#"{"t":\#(t - 500),"peer":"bob"\#(pcKey),"event":"sender-stats","data":{"type":"callscope-sender-stats","v":1,"seq":1,"t":\#(t - 600),"connectionMaxAllocatedBitrate":2000000,"connectionEstimatedBandwidth":900000,"rttMs":5,"lossFraction":0}}"#)
            }
            lines.append(#"{"t":\#(t),"peer":"bob","pc":"pc-1","report":[{"id":"IT1","type":"inbound-rtp","timestamp":\#(t),"kind":"video","mid":"0","bytesReceived":\#(100_000 * second),"packetsReceived":\#(100 * second),"packetsLost":0}]}"#)
        }
        return Array(lines.joined(separator: "\n").utf8)
    }

    @Test func aBindingWithoutMidIsTheConnectionsOnlyStreamAndCarriesItsName() throws {
        let callbacks = ReplayDriver.replay(try StatsTimeline.read(recording(senderStatsOnConnection: "pc-1")))
        let video = callbacks.compactMap { callback -> (StreamID?, PublisherID?, SubscriberVideoNetworkStats)? in
            if case .subscriberVideoNetworkStatsUpdated(let stats) = callback.event { (callback.stream, callback.publisher, stats) } else { nil }
        }
        #expect(video.map(\.2.videoBytesReceived) == [0, 100_000, 200_000, 300_000])
        #expect(video.allSatisfy { $0.0 == StreamID("S1") && $0.1 == PublisherID("P1") })
        // The message named no publisher: it is P1's, the publisher that connection carries, so
        // the samples after it carry its numbers (900 kbit/s estimate).
        #expect(video.map { $0.2.senderStats?.connectionEstimatedBandwidth } == [nil, nil, 900_000, 900_000])
    }

    @Test func anUnnamedMessageOffAnyRecordedConnectionStaysUnattributed() throws {
        let callbacks = ReplayDriver.replay(try StatsTimeline.read(recording(senderStatsOnConnection: nil)))
        let hasSenderStats = callbacks.compactMap { callback -> Bool? in
            if case .subscriberVideoNetworkStatsUpdated(let stats) = callback.event { stats.senderStats != nil } else { nil }
        }
        #expect(hasSenderStats == [false, false, false, false])
    }
}
