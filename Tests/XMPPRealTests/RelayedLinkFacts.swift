import Calls
import Observability
import Foundation
import RTCStats

/// What one relayed link shows each second at both ends, read from the two engines: the
/// subscriber's inbound audio and video (packets, lost, jitter, frames), its selected pair
/// (bytes, round-trip time) and the publisher's RTCP sender reports as it receives them
/// (`remote-outbound-rtp`: packets the publisher says it sent); the publisher's outbound video
/// (packets, frames encoded, target bitrate, quality limitation) and its pair's available
/// outgoing bitrate. Printed around a change, to tell a starved link from a stopped camera.
final class RelayedLinkFacts: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, subscriber: StatsReport, publisher: StatsReport?)] = []
    private var task: Task<Void, Never>?

    /// Polls the subscriber's first answered peer connection on `subscriber` and the peer
    /// connection `publication` on `publisher`, every `interval`.
    init(subscriber: NotedMediaEngine, publisher: any MediaEngine, publication: PeerConnectionID, interval: Duration = .milliseconds(500)) {
        task = Task { [weak self] in
            while !Task.isCancelled {
                if let id = subscriber.answeringPeerConnections.first, let report = try? await subscriber.stats(of: id) {
                    let sent = try? await publisher.stats(of: publication)
                    self?.append(report, sent)
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    deinit { task?.cancel() }

    func stop() { task?.cancel() }

    private func append(_ report: StatsReport, _ sent: StatsReport?) { lock.withLock { stored.append((.now, report, sent)) } }

    /// One line per pair of samples about a second apart, from `start` for `span`: each figure is
    /// the change over that second (rates in kbit/s, jitter and round-trip time in ms as read).
    func lines(from start: ContinuousClock.Instant, span: Duration) -> [String] {
        let all = lock.withLock { stored }.filter { $0.at >= start && $0.at <= start + span }
        var out: [String] = []
        var index = 0
        while let next = all.indices.dropFirst(index + 1).first(where: { all[$0].at - all[index].at >= .milliseconds(950) }) {
            out.append(Self.line(all[index], all[next], start: start))
            index = next
        }
        return out
    }

    private static func inbound(_ report: StatsReport, _ kind: String) -> StatsEntry? {
        report.entries(ofType: .inboundRTP).first { $0.kind == kind }
    }

    private static func remoteOutbound(_ report: StatsReport, _ kind: String) -> StatsEntry? {
        report.entries(ofType: .remoteOutboundRTP).first { $0.kind == kind }
    }

    private static func delta(_ a: StatsEntry?, _ b: StatsEntry?, _ field: String) -> String {
        guard let x = a?.number(field), let y = b?.number(field) else { return "-" }
        return String(format: "%.0f", y - x)
    }

    private static func value(_ entry: StatsEntry?, _ field: String, scale: Double = 1) -> String {
        entry?.number(field).map { String(format: "%.0f", $0 * scale) } ?? "-"
    }

    private static func line(_ a: (at: ContinuousClock.Instant, subscriber: StatsReport, publisher: StatsReport?),
                             _ b: (at: ContinuousClock.Instant, subscriber: StatsReport, publisher: StatsReport?),
                             start: ContinuousClock.Instant) -> String {
        let seconds = RealRelayedReconnectTests.seconds(b.at - a.at)
        let (va, vb) = (inbound(a.subscriber, "video"), inbound(b.subscriber, "video"))
        let (aa, ab) = (inbound(a.subscriber, "audio"), inbound(b.subscriber, "audio"))
        let (ra, rb) = (remoteOutbound(a.subscriber, "video"), remoteOutbound(b.subscriber, "video"))
        let (pa, pb) = (a.subscriber.selectedCandidatePair, b.subscriber.selectedCandidatePair)
        let pairRate = (pa?.bytesReceived).flatMap { x in pb?.bytesReceived.map { ($0 - x) * 8 / seconds / 1000 } }
        var text = String(format: "+%.1f ", RealRelayedReconnectTests.seconds(b.at - start))
        text += "video rx \(delta(va, vb, "packetsReceived")) lost \(delta(va, vb, "packetsLost")) frames \(delta(va, vb, "framesDecoded")) jit \(value(vb, "jitter", scale: 1000)) | "
        text += "audio rx \(delta(aa, ab, "packetsReceived")) lost \(delta(aa, ab, "packetsLost")) jit \(value(ab, "jitter", scale: 1000)) | "
        text += "SR video sent \(delta(ra, rb, "packetsSent")) reports \(delta(ra, rb, "reportsSent")) | "
        text += "pair \(pairRate.map { String(format: "%.0f", $0) } ?? "-") kbit/s rtt \(value(pb, "currentRoundTripTime", scale: 1000))"
        if let sa = a.publisher, let sb = b.publisher {
            func sum(_ report: StatsReport, _ type: StatsType, _ field: String) -> Double {
                report.entries(ofType: type).filter { $0.kind == "video" }.reduce(0) { $0 + ($1.number(field) ?? 0) }
            }
            func change(_ type: StatsType, _ field: String) -> String { String(format: "%.0f", sum(sb, type, field) - sum(sa, type, field)) }
            let active = sb.entries(ofType: .outboundRTP).filter { $0.kind == "video" && ($0.number("targetBitrate") ?? 0) > 0 }
            text += " || pub video sent \(change(.outboundRTP, "packetsSent")) rtx \(change(.outboundRTP, "retransmittedPacketsSent")) "
            text += "bytes \(change(.outboundRTP, "bytesSent")) rtx bytes \(change(.outboundRTP, "retransmittedBytesSent")) "
            text += "enc \(change(.outboundRTP, "framesEncoded")) target \(String(format: "%.0f", sum(sb, .outboundRTP, "targetBitrate") / 1000)) "
            text += "limit \(active.compactMap(\.qualityLimitationReason).joined(separator: ",")) avail \(value(sb.selectedCandidatePair, "availableOutgoingBitrate", scale: 0.001)) "
            text += "rr lost \(change(.remoteInboundRTP, "packetsLost"))"
        }
        return text
    }
}
