import CallScopeReplay
import Observability
import RTCStats
import Testing

/// A dump of one endpoint with a sending connection, an SFU receiving connection and a
/// peer-to-peer receiving connection at the same time: each connection is its own, each
/// receiving one its own stream (before, every single-stream connection was stream "" of
/// "local", the byte counters were summed and the stats flipped between connections).
@Suite struct ConcurrentConnectionsTests {
    /// One Chrome webrtc-internals series, new layout, one value per second from 10:00:00.
    private func series(_ id: String, _ field: String, _ type: String, _ values: [String]) -> String {
        "\"\(id)-\(field)\":{\"startTime\":\"2024-05-01T10:00:00.000Z\",\"endTime\":\"2024-05-01T10:00:0\(values.count - 1).000Z\",\"statsType\":\"\(type)\",\"values\":\"[\(values.joined(separator: ","))]\"}"
    }

    private func connection(_ name: String, _ series: [String]) -> String {
        "\"\(name)\":{\"stats\":{\(series.joined(separator: ","))}}"
    }

    @Test func everyConnectionOfADumpIsItsOwnAndSoAreItsStreams() throws {
        let seconds = 0..<6
        let times = seconds.map { String(1714557600000 + 1000 * $0) }
        let video = seconds.map { _ in "\\\"video\\\"" }
        func receiver(_ pc: String, bytesPerSecond: Int) -> String {
            connection(pc, [
                series("IT1", "timestamp", "inbound-rtp", times), series("IT1", "kind", "inbound-rtp", video),
                series("IT1", "bytesReceived", "inbound-rtp", seconds.map { String(bytesPerSecond * $0) }),
                series("IT1", "packetsReceived", "inbound-rtp", seconds.map { String(bytesPerSecond / 1000 * $0) }),
                series("IT1", "packetsLost", "inbound-rtp", seconds.map { _ in "0" }),
            ])
        }
        let sender = connection("7-1", [
            series("OT1", "timestamp", "outbound-rtp", times), series("OT1", "kind", "outbound-rtp", video),
            series("OT1", "bytesSent", "outbound-rtp", seconds.map { String(40_000 * $0) }),
        ])
        let dump = "{\"PeerConnections\":{\(sender),\(receiver("7-2", bytesPerSecond: 125_000)),\(receiver("7-3", bytesPerSecond: 25_000))}}"
        let timeline = try StatsTimeline.read(Array(dump.utf8))

        var received: [String: [UInt64]] = [:]
        var bitrates: [String: [Double]] = [:]
        var sent: [UInt64] = []
        for callback in ReplayDriver.replay(timeline) {
            switch callback.event {
            case .subscriberVideoNetworkStatsUpdated(let stats):
                received[callback.peerConnection.rawValue, default: []].append(stats.videoBytesReceived)
                bitrates[callback.peerConnection.rawValue, default: []].append(stats.bitrate)
            case .publisherVideoNetworkStatsUpdated(let links): sent.append(links[0].videoBytesSent)
            default: break
            }
        }
        // Each receiving connection keeps its own counters: 125 kB/s and 25 kB/s, never summed.
        #expect(received["7-2"] == seconds.map { UInt64(125_000 * $0) })
        #expect(received["7-3"] == seconds.map { UInt64(25_000 * $0) })
        #expect(bitrates["7-2"]?.dropFirst().allSatisfy { $0 == 1_000_000 } == true)
        #expect(bitrates["7-3"]?.dropFirst().allSatisfy { $0 == 200_000 } == true)
        #expect(sent == seconds.map { UInt64(40_000 * $0) })
    }
}
