@testable import Calls
import Observability
import RTCStats
import Testing

/// A live publisher's `connectionMaxAllocatedBitrate` is the ceiling of its settings
/// (docs/spec/observability.md §3: the sum of the maximum bitrates of its encodings, audio
/// included), not the highest target seen. The default settings: f 1.5 Mbit/s, h 500 kbit/s,
/// q 150 kbit/s and audio at 64 kbit/s, 2 214 000 bps in all, while the encoder targets only
/// 300 + 100 + 50 kbit/s (450 000 bps: what the old fallback reported).
@Suite struct PublisherMaxAllocatedBitrateTests {
    final class Outbox: @unchecked Sendable {
        // @unchecked: written by the monitor's sender closure, which the test calls synchronously.
        var messages: [[UInt8]] = []
    }

    static func report(at time: Double) -> StatsReport {
        func layer(_ rid: String, _ ssrc: Double, width: Double, height: Double, target: Double) -> StatsEntry {
            StatsEntry(id: "OT-\(rid)", type: .outboundRTP, timestamp: time, fields: [
                StatsField("kind", .string("video")), StatsField("ssrc", .number(ssrc)), StatsField("rid", .string(rid)),
                StatsField("bytesSent", .number(time * target / 8000)), StatsField("packetsSent", .number(time / 10)),
                StatsField("frameWidth", .number(width)), StatsField("frameHeight", .number(height)),
                StatsField("targetBitrate", .number(target)),
            ])
        }
        return StatsReport(entries: [
            layer("q", 1, width: 240, height: 135, target: 50_000),
            layer("h", 2, width: 480, height: 270, target: 100_000),
            layer("f", 3, width: 960, height: 540, target: 300_000),
            StatsEntry(id: "T", type: .transport, timestamp: time, fields: [StatsField("selectedCandidatePairId", .string("CP"))]),
            StatsEntry(id: "CP", type: .candidatePair, timestamp: time, fields: [StatsField("availableOutgoingBitrate", .number(1_500_000))]),
        ])
    }

    @Test func aLivePublishersCeilingComesFromItsSettings() {
        let publisher = CallPublisher(settings: CallPublisherSettings(senderStatsTrack: true))
        let outbox = Outbox()
        publisher.statsMonitor.senderStatsSender = { outbox.messages.append($0) }
        let subscriber = SubscriberStatsMonitor()
        for second in 1...3 {
            let time = 1_800_000_000_000 + Double(second) * 1000
            publisher.statsMonitor.ingest(Self.report(at: time), peerConnection: "pub-1")
            if let bytes = outbox.messages.last { subscriber.receiveSenderStats(bytes, at: time) }
        }
        #expect(subscriber.latestSenderStats?.connectionMaxAllocatedBitrate == 2_214_000)
    }
}
