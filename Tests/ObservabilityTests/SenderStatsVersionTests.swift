@testable import Observability
import RTCStats
import Testing

/// Wire versions 1, 2 and 3 of the sender-stats message: this build writes 3 and reads all
/// three; version 3 adds the publisher's paths to the router (the far leg).
@Suite struct SenderStatsVersionTests {
    static let v1 = #"{"type":"callscope-sender-stats","v":1,"seq":4,"t":1795983359122,"connectionMaxAllocatedBitrate":2214000,"connectionEstimatedBandwidth":267203,"rttMs":12,"lossFraction":0.02}"#
    static let v2 = #"{"type":"callscope-sender-stats","v":2,"seq":5,"t":1795983360122,"connectionMaxAllocatedBitrate":2214000,"connectionEstimatedBandwidth":null,"layers":[{"w":320,"h":180,"bps":150000,"rid":"q"}],"audioFallbackEnabled":false,"paths":["udpDirect"]}"#
    static let v3 = #"{"type":"callscope-sender-stats","v":3,"seq":6,"t":1795983361122,"connectionMaxAllocatedBitrate":2214000,"connectionEstimatedBandwidth":300000,"paths":["tcpRelay","udpDirect"]}"#

    @Test func eachVersionIsRead() throws {
        let one = try SenderStatsDecoder.validate(Array(Self.v1.utf8)).get()
        #expect(one.sequence == 4 && one.roundTripTime == 12 && one.lossFraction == 0.02)
        #expect(one.paths == nil && one.audioFallbackEnabled == nil && one.layers.isEmpty)
        let two = try SenderStatsDecoder.validate(Array(Self.v2.utf8)).get()
        #expect(two.layers == [.init(width: 320, height: 180, bitrate: 150_000, rid: "q")])
        #expect(two.audioFallbackEnabled == false)
        #expect(two.paths == nil, "version 2 defines no paths: the field is ignored")
        let three = try SenderStatsDecoder.validate(Array(Self.v3.utf8)).get()
        #expect(three.paths == [.udpDirect, .tcpRelay], "declaration order, whatever the wire order")
        #expect(three.connectionEstimatedBandwidth == 300_000)
    }

    @Test func version3IsWrittenWithThePaths() throws {
        let message = SenderStatsMessage(sequence: 1, timestamp: 2, connectionMaxAllocatedBitrate: 3, connectionEstimatedBandwidth: nil,
                                         paths: [.tcpRelay, .udpRelay])
        let text = String(decoding: message.encoded(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"type":"callscope-sender-stats","v":3,"#))
        #expect(text.contains(#","paths":["udpRelay","tcpRelay"]"#))
        #expect(try SenderStatsDecoder.validate(message.encoded()).get() == message)
        let none = SenderStatsMessage(sequence: 1, timestamp: 2, connectionMaxAllocatedBitrate: 3, connectionEstimatedBandwidth: nil)
        #expect(!String(decoding: none.encoded(), as: UTF8.self).contains("paths"))
        let empty = SenderStatsMessage(sequence: 1, timestamp: 2, connectionMaxAllocatedBitrate: 3, connectionEstimatedBandwidth: nil, paths: [])
        #expect(String(decoding: empty.encoded(), as: UTF8.self).contains(#""paths":[]"#))
        #expect(try SenderStatsDecoder.validate(empty.encoded()).get().paths == [])
    }

    /// The largest message of version 3 (every field at its longest, all three paths) fits.
    @Test func theLargestVersion3MessageFits() {
        let layers = (0..<8).map { _ in SenderStatsMessage.Layer(width: 16384, height: 16384, bitrate: 99_999_999_999, rid: String(repeating: "r", count: 16)) }
        let full = SenderStatsMessage(sequence: 9_007_199_254_740_991, timestamp: 9_007_199_254_740_991, connectionMaxAllocatedBitrate: 99_999_999_999,
                                      connectionEstimatedBandwidth: 99_999_999_999, roundTripTime: 59_999, lossFraction: 0.9999, condition: .critical,
                                      reason: .bandwidth, layers: layers, publisher: PublisherID(String(repeating: "p", count: 64)),
                                      audioFallbackEnabled: false, paths: [.udpDirect, .udpRelay, .tcpRelay])
        let bytes = full.encoded()
        #expect(bytes.count <= SenderStatsMessage.maximumSize, "\(bytes.count) bytes")
        var decoder = SenderStatsDecoder()
        #expect(decoder.decode(bytes, receivedAt: 0) == full)
    }

    @Test(arguments: [#""udpDirect""#, #"["satellite"]"#, #"["udpDirect","udpDirect"]"#, "[1]", "[null]", "{}",
                      #"["udpDirect","udpRelay","tcpRelay","udpDirect"]"#, #"["UDPDIRECT"]"#])
    func hostilePathsDropTheMessageAndAreCounted(paths: String) {
        let text = #"{"type":"callscope-sender-stats","v":3,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1,"paths":\#(paths)}"#
        var decoder = SenderStatsDecoder()
        #expect(decoder.decode(Array(text.utf8), receivedAt: 0) == nil)
        #expect(decoder.dropped == [.invalidValue: 1])
        // A good message afterwards is taken as if the bad one never came.
        #expect(decoder.decode(Array(Self.v3.utf8), receivedAt: 1000)?.paths == [.udpDirect, .tcpRelay])
    }

    @Test func version4IsNotRead() {
        let text = #"{"type":"callscope-sender-stats","v":4,"seq":1,"t":1,"connectionMaxAllocatedBitrate":1}"#
        var decoder = SenderStatsDecoder()
        #expect(decoder.decode(Array(text.utf8), receivedAt: 0) == nil)
        #expect(decoder.dropped == [.unsupportedVersion: 1])
    }

    /// A publisher's paths go into its messages from the next report, and a subscriber's monitor
    /// keeps the latest accepted message.
    @Test func aPublishersPathsReachTheSubscribersLatestMessage() throws {
        let publisher = PublisherStatsMonitor(senderStatsTrack: true)
        let outbox = SenderStatsTrackTests.Outbox()
        publisher.senderStatsSender = { outbox.messages.append($0) }
        publisher.senderStatsPaths = [.udpRelay]
        publisher.ingest(StatsReport(entries: [
            StatsEntry(id: "OT1", type: .outboundRTP, timestamp: 1000, fields: [StatsField("kind", .string("video")), StatsField("bytesSent", .number(1000))]),
        ]), peerConnection: "pub-1")
        let bytes = try #require(outbox.messages.last)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""paths":["udpRelay"]"#))
        let subscriber = SubscriberStatsMonitor()
        #expect(subscriber.latestSenderStats == nil)
        subscriber.receiveSenderStats(bytes, at: 2000)
        #expect(subscriber.latestSenderStats?.paths == [.udpRelay])
    }
}
