import CallScopeTestSupport
import CallScopeReplay
@testable import Observability
import RTCStats
import Testing

@Suite struct SenderStatsTests {
    private let message = SenderStatsMessage(
        sequence: 7, timestamp: 1_795_983_359_122, connectionMaxAllocatedBitrate: 2_214_000, connectionEstimatedBandwidth: 267_203,
        roundTripTime: 12, lossFraction: 0.02, condition: .critical, reason: .bandwidth,
        layers: [.init(width: 240, height: 135, bitrate: 150_000)])

    @Test func aMessageRoundTripsThroughEncoderAndDecoder() throws {
        var decoder = SenderStatsDecoder()
        let bytes = message.encoded()
        #expect(bytes.count <= SenderStatsMessage.maximumSize)
        #expect(decoder.decode(bytes, receivedAt: 1000) == message)
        #expect(decoder.accepted == 1)
    }

    /// Version 2 adds each layer's rid, the publisher's audio-fallback switch and whether its
    /// camera is on; the largest message (8 layers, every field, a 64-byte publisher id) still
    /// fits in 1 KiB.
    @Test func version2CarriesRidsAndTheAudioFallbackSwitch() {
        let layers = (0..<8).map { _ in SenderStatsMessage.Layer(width: 16384, height: 16384, bitrate: 99_999_999_999, rid: String(repeating: "r", count: 16)) }
        let full = SenderStatsMessage(sequence: 9_007_199_254_740_991, timestamp: 9_007_199_254_740_991, connectionMaxAllocatedBitrate: 99_999_999_999,
                                      connectionEstimatedBandwidth: 99_999_999_999, roundTripTime: 59_999, lossFraction: 0.9999, condition: .critical,
                                      reason: .bandwidth, layers: layers, publisher: PublisherID(String(repeating: "p", count: 64)), audioFallbackEnabled: false,
                                      videoEnabled: false)
        let bytes = full.encoded()
        #expect(bytes.count <= SenderStatsMessage.maximumSize)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""v":3"#), "this build writes version 3")
        var decoder = SenderStatsDecoder()
        let decoded = decoder.decode(bytes, receivedAt: 0)
        #expect(decoded == full)
        #expect(decoded?.layers.first?.rid == String(repeating: "r", count: 16))
        #expect(decoded?.audioFallbackEnabled == false)
        #expect(decoded?.videoEnabled == false)
    }

    @Test func theRigsJavaScriptMessageIsAccepted() {
        let text = #"{"connectionEstimatedBandwidth":267203,"connectionMaxAllocatedBitrate":2214000,"lossFraction":0,"rttMs":1,"seq":32,"t":1795983359122,"type":"callscope-sender-stats","v":1}"#
        var decoder = SenderStatsDecoder()
        let decoded = decoder.decode(Array(text.utf8), receivedAt: 0)
        #expect(decoded?.connectionEstimatedBandwidth == 267_203)
        #expect(decoded?.condition == nil)
        #expect(decoded?.senderStats == SenderStats(connectionMaxAllocatedBitrate: 2_214_000, connectionEstimatedBandwidth: 267_203))
    }

    @Test(arguments: [
        (String(repeating: " ", count: 1025) + "{}", SenderStatsDecoder.Rejection.tooLarge),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1"#, .malformed),
        ("[1,2,3]", .malformed),
        (#"{"type":"callscope-sender-stats","v":4,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1}"#, .unsupportedVersion),
        (#"{"type":"callscope-sender-stats","v":1.5,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1}"#, .unsupportedVersion),
        (#"{"type":"callscope-sender-stats","v":2,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"audioFallbackEnabled":"yes"}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":2,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"videoEnabled":1}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":2,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"layers":[{"w":2,"h":2,"bps":3,"rid":"a-rid-far-too-long-for-a-layer"}]}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":2,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"layers":[{"w":2,"h":2,"bps":3,"rid":7}]}"#, .invalidValue),
        (#"{"type":"other","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1}"#, .unsupportedVersion),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":"2000000"}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":-5}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1e300}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"lossFraction":1.5}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"rttMs":-1}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"condition":"splendid"}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"layers":[{"w":1.5,"h":2,"bps":3}]}"#, .invalidValue),
        (#"{"type":"callscope-sender-stats","v":1,"t":1,"connectionMaxAllocatedBitrate":1}"#, .invalidValue),
    ])
    func hostileMessagesAreDroppedAndCounted(text: String, rejection: SenderStatsDecoder.Rejection) {
        var decoder = SenderStatsDecoder()
        #expect(decoder.decode(Array(text.utf8), receivedAt: 0) == nil)
        #expect(decoder.dropped == [rejection: 1])
        #expect(decoder.accepted == 0)
    }

    @Test func aFloodIsRateLimitedAndReplaysAreStale() {
        var decoder = SenderStatsDecoder()
        var accepted = 0
        for index in 0..<100 {
            var copy = message
            copy.sequence = index + 1
            if decoder.decode(copy.encoded(), receivedAt: Double(index) * 10) != nil { accepted += 1 }
        }
        // 100 messages in 1 s with a 250 ms minimum interval.
        #expect(accepted == 4)
        #expect(decoder.dropped[.rateLimited] == 96)
        #expect(decoder.decode(message.encoded(), receivedAt: 10_000) == nil, "sequence 7 after 100 is a replay")
        #expect(decoder.dropped[.stale] == 1)
    }

    @Test func randomBytesNeverCrashAndNeverChangeTheAcceptedState() {
        var generator = SeededGenerator(seed: 99)
        var decoder = SenderStatsDecoder()
        let good = decoder.decode(message.encoded(), receivedAt: 0)
        #expect(good != nil)
        let valid = message.encoded()
        for round in 0..<2000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))) }
            _ = decoder.decode(bytes, receivedAt: Double(round + 1) * 1000)
        }
        #expect(decoder.accepted + decoder.droppedCount == 2001)
    }

    /// Without sender stats in the recording, the replay derives the publisher's messages and
    /// delivers them one interval late: the subscriber's senderStats appear then.
    @Test func derivedSenderStatsReachTheSubscriberOneIntervalLate() throws {
        func publisherSample(_ time: Double) -> StatsSample {
            Synthetic.sample("publisher", pc: "pub", at: time, [
                Synthetic.videoLayer("OT1", at: time, rid: "f", width: 640, height: 360, bytesSent: time * 100),
                Synthetic.entry("T", .transport, at: time, ["selectedCandidatePairId": "CP"]),
                Synthetic.entry("CP", .candidatePair, at: time, ["availableOutgoingBitrate": 1_500_000]),
            ])
        }
        func subscriberSample(_ time: Double) -> StatsSample {
            Synthetic.sample("subscriber", pc: "sub", at: time, [
                Synthetic.entry("IT1", .inboundRTP, at: time, ["kind": "video", "bytesReceived": time * 100, "packetsReceived": time / 10, "packetsLost": 0]),
            ])
        }
        let items = (1...4).flatMap { second -> [TimelineItem] in
            let time = Double(second) * 1000
            return [.sample(publisherSample(time)), .sample(subscriberSample(time + 10))]
        }
        let timeline = StatsTimeline(format: .recording, items: items)
        var driver = ReplayDriver(timeline: timeline, configuration: StatsEngineConfiguration(maxAllocatedBitrate: 2_000_000))
        var senderStats: [SenderStats?] = []
        for item in items {
            for callback in driver.ingest(item) {
                if case .subscriberVideoNetworkStatsUpdated(let video) = callback.event { senderStats.append(video.senderStats) }
            }
        }
        #expect(senderStats[0] == nil)
        #expect(senderStats[1] == SenderStats(connectionMaxAllocatedBitrate: 2_000_000, connectionEstimatedBandwidth: 1_500_000))
        #expect(driver.senderStatsCounts(endpoint: "subscriber").accepted == 3)
    }
}
