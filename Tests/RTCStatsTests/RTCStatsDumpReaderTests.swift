import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

@Suite struct RTCStatsDumpReaderTests {
    @Test func deltasMergeIntoRunningStateAndZeroTimestampsMeanTheReportTime() throws {
        let text = """
        ["connectionInfo",null,{"userAgent":"test"},1]
        ["getstats","PC_0",{"OT1":{"type":"outbound-rtp","timestamp":0,"kind":"video","bytesSent":100,"packetsSent":1},"CP":{"type":"candidate-pair","timestamp":0,"bytesSent":7},"timestamp":1000},1003]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":300},"timestamp":2000},2004]
        ["onconnectionstatechange","PC_0","connected",2100]
        """
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.format == .rtcstats)
        let samples = timeline.samples
        #expect(samples.count == 2)
        let second = try #require(samples[1].report["OT1"])
        #expect(second.bytesSent == 300)
        #expect(second.packetsSent == 1, "an unchanged field carries over")
        #expect(second.timestamp == 2000)
        #expect(samples[1].report["CP"]?.timestamp == 1000, "an entry absent from the delta keeps its old time")
        #expect(samples[1].time == 2004)
        #expect(timeline.items.contains { if case .event(let event) = $0 { event.name == "onconnectionstatechange" } else { false } })
        #expect(timeline.metadata.first { $0.name == "userAgent" }?.value == .string("test"))
    }

    /// Version 3: magic line, metadata, times as deltas (the first since the epoch).
    @Test func version3DumpsAddUpDeltaTimesAndMergeDeltas() throws {
        let text = """
        RTCStatsDump
        {"fileFormat":3,"url":"https://example.test/call"}
        ["create","pc-1",{"iceServers":[]},1700000000000]
        ["getStats","pc-1",{"OT1":{"type":"outbound-rtp","timestamp":1700000001000,"kind":"video","bytesSent":100}},1000]
        ["getStats","pc-1",{"OT1":{"timestamp":1700000002000,"bytesSent":350}},1000]
        [7,"pc-1",{},500]
        """
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.format == .rtcstats)
        #expect(timeline.metadata.first { $0.name == "url" }?.value == .string("https://example.test/call"))
        #expect(timeline.samples.map(\.time) == [1_700_000_001_000, 1_700_000_002_000])
        #expect(timeline.samples[1].report["OT1"]?.bytesSent == 350)
        #expect(timeline.samples[1].report["OT1"]?.kind == "video", "unchanged fields carry over")
        #expect(timeline.problems.map(\.code) == [.unsupportedCompression], "a compressed method name is reported, not guessed")
        #expect(timeline.problems.first?.line == 6)
    }

    @Test func otherRTCStatsDumpVersionsAreRefusedClearly() {
        #expect(throws: StatsParseError.self) { try StatsTimeline.read(Array("RTCStatsDump\n{\"fileFormat\":2}\n".utf8)) }
    }

    /// An independent merge with Foundation dictionaries, to check the reader on real dumps.
    private func independentOutboundBytes(_ bytes: [UInt8]) throws -> [[String: Double]] {
        var state: [String: [String: [String: Any]]] = [:]
        var result: [[String: Double]] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let array = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], array.count >= 3,
                  array[0] as? String == "getstats", let pc = array[1] as? String, let delta = array[2] as? [String: Any] else { continue }
            var running = state[pc] ?? [:]
            for (id, value) in delta {
                guard let fields = value as? [String: Any] else { continue }
                running[id, default: [:]].merge(fields) { $1 }
            }
            state[pc] = running
            var bytesByID: [String: Double] = [:]
            for (id, fields) in running where fields["type"] as? String == "outbound-rtp" {
                bytesByID[pc + id] = (fields["bytesSent"] as? NSNumber)?.doubleValue ?? -1
            }
            result.append(bytesByID)
        }
        return result
    }

    @Test(arguments: ["chrome-relay.rtcstats", "firefox97-standard-stats-sfu.rtcstats", "safari-relay.rtcstats", "chrome-standard-pc-reconnect.rtcstats"])
    func realDumpsRebuildTheSameReportsAsAnIndependentMerge(name: String) throws {
        let bytes = try Synthetic.fixture(name)
        let expected = try independentOutboundBytes(bytes)
        let timeline = try StatsTimeline.read(bytes)
        #expect(timeline.format == .rtcstats)
        #expect(timeline.problems.isEmpty)
        // The reader sorts by time; the dumps are already in time order per line.
        let actual = timeline.samples.map { sample in
            Dictionary(uniqueKeysWithValues: sample.report.entries(ofType: .outboundRTP).map { (sample.peerConnection + $0.id, $0.bytesSent ?? -1) })
        }
        #expect(actual.count == expected.count)
        #expect(actual == expected)
        #expect(expected.contains { !$0.isEmpty }, "the dump has senders")
    }
}
