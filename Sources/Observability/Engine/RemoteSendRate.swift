import RTCStats

/// What a relayed publisher sends on its link to this subscriber, from its RTCP sender reports
/// as the subscriber receives them (`remote-outbound-rtp`: the publisher's `bytesSent` at its
/// own `remoteTimestamp`). A sender report comes about once a second for video and every few
/// seconds for audio: each source's rate is taken between its last two reports and kept until
/// the next one.
struct RemoteSendRate: Sendable {
    private var sources: [String: Source] = [:]

    private struct Source: Sendable {
        var bytes: Double
        var remoteTime: Double
        var bitsPerSecond: Double?
    }

    /// The publisher's send rate (bps) over the sources of `inbound` in `report`, `nil` until
    /// one source has had two sender reports. A counter that went back or a time that did not
    /// advance starts that source over.
    mutating func update(inbound: [StatsEntry], in report: StatsReport) -> Double? {
        var total: Double?
        for entry in inbound {
            guard let remoteID = entry.string("remoteId"), let remote = report[remoteID],
                  let bytes = remote.bytesSent, let remoteTime = remote.number("remoteTimestamp") else { continue }
            var source = sources[remoteID] ?? Source(bytes: bytes, remoteTime: remoteTime)
            if remoteTime > source.remoteTime {
                let rate = bytes >= source.bytes ? (bytes - source.bytes) * 8 * 1000 / (remoteTime - source.remoteTime) : nil
                source = Source(bytes: bytes, remoteTime: remoteTime, bitsPerSecond: rate.flatMap { PhysicalBounds.bitrate.contains($0) ? $0 : nil })
            } else if remoteTime < source.remoteTime {
                source = Source(bytes: bytes, remoteTime: remoteTime)
            }
            sources[remoteID] = source
            if let rate = source.bitsPerSecond { total = (total ?? 0) + rate }
        }
        return total
    }
}
