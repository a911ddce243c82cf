import CallScopeReplay
import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// Damaged and hostile inputs through the readers and the whole engine: a typed error or a
/// skipped line, never a crash; the engine keeps producing finite numbers; and what was not
/// damaged replays exactly as it would have without the damage.
@Suite struct DamagedInputTests {
    private func replay(_ bytes: [UInt8]) -> [StatsCallback] {
        guard let timeline = try? StatsTimeline.read(bytes) else { return [] }
        let callbacks = ReplayDriver.replay(timeline)
        for callback in callbacks {
            let line = callback.ndjsonLine
            #expect(!line.contains("nan") && !line.contains("inf"), "no non-finite number reaches the output")
        }
        return callbacks
    }

    private func recordingLines(_ name: String) throws -> [String] {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/\(name)")
        let plain = try Gzip.decompress([UInt8](try Data(contentsOf: url)))
        return String(decoding: plain, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func mutatedRecordingsNeverCrashTheReadersOrTheEngine(seed: UInt64) throws {
        let plain = Array(try recordingLines("publisher-uplink-400k.ndjson.gz").joined(separator: "\n").utf8)
        var generator = SeededGenerator(seed: seed)
        let alphabet = Array("0123456789-.eE,:[]{}\"\\ntruefalsnl \n".utf8)
        for _ in 0..<20 {
            var bytes = Array(plain.prefix(200_000))
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = alphabet.randomElement(using: &generator)!
            }
            _ = replay(bytes)
        }
    }

    /// Lines cut in half (a truncated write) are skipped; every other sample replays to the
    /// same callbacks as the recording without those lines.
    @Test(arguments: [4, 5] as [UInt64])
    func damagedLinesAreSkippedAndEverythingElseReplaysUnchanged(seed: UInt64) throws {
        let lines = try recordingLines("publisher-uplink-400k.ndjson.gz")
        var generator = SeededGenerator(seed: seed)
        let damaged = Set((0..<8).map { _ in Int.random(in: 1..<lines.count, using: &generator) })
        var withDamage = lines
        for index in damaged { withDamage[index] = String(lines[index].prefix(lines[index].count / 2)) }
        let withoutThem = lines.enumerated().filter { !damaged.contains($0.offset) }.map(\.element)

        let timeline = try StatsTimeline.read(Array(withDamage.joined(separator: "\n").utf8))
        #expect(timeline.problems.count == damaged.count, "each damaged line is reported once")
        let expected = replay(Array(withoutThem.joined(separator: "\n").utf8))
        #expect(expected.count > 200)
        #expect(replay(Array(withDamage.joined(separator: "\n").utf8)) == expected)
    }

    @Test func absurdNumbersAndTypesInAReportStayContained() {
        let text = """
        {"format":"webrtc-stats-recording","version":1}
        {"t":1000,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":1000,"kind":"video","bytesSent":1e400,"packetsSent":-5,"frameWidth":"wide","rid":7}]}
        {"t":2000,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":2000,"kind":"video","bytesSent":1e308,"headerBytesSent":1e308,"framesPerSecond":-1e308}]}
        {"t":3000,"peer":"p","pc":"a","report":[{"id":"IT1","type":"inbound-rtp","timestamp":3000,"kind":"video","bytesReceived":-1,"packetsLost":1e300,"packetsReceived":1e300}]}
        {"t":4000,"peer":"p","pc":"a","report":[{"id":"IT1","type":"inbound-rtp","timestamp":4000,"kind":"video","bytesReceived":5,"packetsLost":0,"packetsReceived":0,"framesDecoded":1e300}]}
        """
        let callbacks = replay(Array(text.utf8))
        // Both sides still report: the publisher for its two samples, the subscriber for its two.
        #expect(callbacks.filter { $0.event.callbackName == "publisher.mediaLinkStatsUpdated" }.count == 2)
        #expect(callbacks.filter { $0.event.callbackName == "subscriber.mediaLinkStatsUpdated" }.count == 2)
    }

    @Test func absurdTimesInDumpsAndRecordingsStayContained() {
        let dump = #"{"PeerConnections":{"1-1":{"stats":{"OT-timestamp":{"statsType":"outbound-rtp","values":"[1e300,-1e300,5]"},"OT-bytesSent":{"statsType":"outbound-rtp","values":"[1,2,3]"}}},"2-1":{"stats":{"X-timestamp":{"values":"[1e308]"},"X-kind":{"values":"[\\"video\\"]"}}}}}"#
        _ = replay(Array(dump.utf8))
        let recording = """
        {"format":"webrtc-stats-recording","version":1e300}
        """
        #expect(throws: StatsParseError.self) { try StatsTimeline.read(Array(recording.utf8)) }
        let times = """
        {"format":"webrtc-stats-recording","version":1}
        {"t":1e300,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":1e300,"kind":"video","bytesSent":1}]}
        {"t":-1e300,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":-1e300,"kind":"video","bytesSent":2}]}
        """
        _ = replay(Array(times.utf8))
    }
}
