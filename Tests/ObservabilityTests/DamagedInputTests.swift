import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// Damaged and hostile inputs through the readers and the whole engine: a typed error or a
/// skipped line, never a crash, and the engine keeps producing finite numbers.
@Suite struct DamagedInputTests {
    private func replay(_ bytes: [UInt8]) -> Int {
        guard let timeline = try? StatsTimeline.read(bytes) else { return 0 }
        var engine = CallStatsEngine(deriveSenderStats: true)
        var callbacks = 0
        for item in timeline.items {
            for callback in engine.ingest(item) {
                callbacks += 1
                let line = callback.ndjsonLine
                #expect(!line.contains("nan") && !line.contains("inf"), "no non-finite number reaches the output")
            }
        }
        return callbacks
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func mutatedRecordingsNeverCrashTheReadersOrTheEngine(seed: UInt64) throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/publisher-uplink-400k.ndjson.gz")
        let plain = try Gzip.decompress([UInt8](try Data(contentsOf: url)))
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

    @Test func absurdNumbersAndTypesInAReportStayContained() {
        let text = """
        {"format":"webrtc-stats-recording","version":1}
        {"t":1000,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":1000,"kind":"video","bytesSent":1e400,"packetsSent":-5,"frameWidth":"wide","rid":7}]}
        {"t":2000,"peer":"p","pc":"a","report":[{"id":"OT1","type":"outbound-rtp","timestamp":2000,"kind":"video","bytesSent":1e308,"headerBytesSent":1e308,"framesPerSecond":-1e308}]}
        {"t":3000,"peer":"p","pc":"a","report":[{"id":"IT1","type":"inbound-rtp","timestamp":3000,"kind":"video","bytesReceived":-1,"packetsLost":1e300,"packetsReceived":1e300}]}
        {"t":4000,"peer":"p","pc":"a","report":[{"id":"IT1","type":"inbound-rtp","timestamp":4000,"kind":"video","bytesReceived":5,"packetsLost":0,"packetsReceived":0,"framesDecoded":1e300}]}
        """
        #expect(replay(Array(text.utf8)) > 0)
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
