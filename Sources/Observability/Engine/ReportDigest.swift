import RTCStats

/// The entries of one report the engine needs, sorted out in a single pass.
struct ReportDigest {
    var outbound: [StatsEntry] = []
    var inbound: [StatsEntry] = []
    /// The `remote-inbound-rtp` entry describing `outbound[i]`, at index `i` (`nil` when none).
    var remoteInbound: [StatsEntry?] = []

    init(_ report: StatsReport) {
        var remotes: [StatsEntry] = []
        for entry in report.entries {
            switch entry.knownType {
            case .outboundRTP?: outbound.append(entry)
            case .inboundRTP?: inbound.append(entry)
            case .remoteInboundRTP?: remotes.append(entry)
            default: continue
            }
        }
        remoteInbound = Array(repeating: nil, count: outbound.count)
        guard !remotes.isEmpty else { return }
        // Matched by `localId`, else by SSRC. Browsers list remote-inbound entries in their
        // senders' order, so the outbound entry at the same position is tried first: a string
        // comparison or two per sender instead of hashing every id into a dictionary.
        for (position, remote) in remotes.enumerated() {
            let match: Int?
            if let local = remote.localID {
                match = position < outbound.count && outbound[position].id == local ? position : outbound.firstIndex { $0.id == local }
            } else if let ssrc = remote.ssrc {
                match = outbound.firstIndex { $0.ssrc == ssrc }
            } else {
                match = nil
            }
            if let match { remoteInbound[match] = remote }
        }
    }
}
