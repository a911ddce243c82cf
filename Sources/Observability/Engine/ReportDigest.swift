import RTCStats

/// The entries of one report the engine needs, sorted out in a single pass.
struct ReportDigest {
    var outbound: [StatsEntry] = []
    var inbound: [StatsEntry] = []
    var remoteInboundByLocalID: [String: StatsEntry] = [:]

    init(_ report: StatsReport) {
        var remoteInbound: [StatsEntry] = []
        for entry in report.entries {
            switch entry.knownType {
            case .outboundRTP?: outbound.append(entry)
            case .inboundRTP?: inbound.append(entry)
            case .remoteInboundRTP?: remoteInbound.append(entry)
            default: continue
            }
        }
        for remote in remoteInbound {
            if let local = remote.localID {
                remoteInboundByLocalID[local] = remote
            } else if let ssrc = remote.ssrc, let match = outbound.first(where: { $0.ssrc == ssrc }) {
                remoteInboundByLocalID[match.id] = remote
            }
        }
    }
}
