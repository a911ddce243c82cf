import RTCStats

/// The entries of one report the engine needs, sorted out in a single pass (the engine never
/// scans the whole report again).
struct ReportDigest {
    var outbound: [StatsEntry] = []
    var inbound: [StatsEntry] = []
    /// The `remote-inbound-rtp` entry describing `outbound[i]`, at index `i` (`nil` when none).
    var remoteInbound: [StatsEntry?] = []
    /// Legacy `stream` entries (old Chrome, Safari), which group tracks into streams.
    var legacyStreams: [StatsEntry] = []
    /// The latest entry timestamp (``StatsReport/timestamp``), worked out once.
    var time: Double?
    /// The candidate pair carrying media (see ``selectPair(transports:pairs:in:)``).
    var selectedPair: StatsEntry?

    init(_ report: StatsReport) {
        // Counted first so every array is allocated once, at its size.
        time = report.timestamp
        var (outboundCount, inboundCount, remoteCount, streamCount) = (0, 0, 0, 0)
        for entry in report.entries {
            switch entry.knownType {
            case .outboundRTP?: outboundCount += 1
            case .inboundRTP?: inboundCount += 1
            case .remoteInboundRTP?: remoteCount += 1
            case .stream?: streamCount += 1
            default: continue
            }
        }
        outbound.reserveCapacity(outboundCount)
        inbound.reserveCapacity(inboundCount)
        legacyStreams.reserveCapacity(streamCount)
        var remotes: [StatsEntry] = []
        remotes.reserveCapacity(remoteCount)
        var transportPairIDs: [String] = []
        for entry in report.entries {
            switch entry.knownType {
            case .outboundRTP?: outbound.append(entry)
            case .inboundRTP?: inbound.append(entry)
            case .remoteInboundRTP?: remotes.append(entry)
            case .stream?: legacyStreams.append(entry)
            case .transport?: if let id = entry.selectedCandidatePairID { transportPairIDs.append(id) }
            default: continue
            }
        }
        selectedPair = Self.selectPair(transportPairIDs: transportPairIDs, in: report)
        remoteInbound = Array(repeating: nil, count: outbound.count)
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

    /// The candidate pair carrying media: a transport's `selectedCandidatePairId` (Chrome,
    /// Safari), else the pair marked `selected` (Firefox), else the nominated succeeded pair
    /// with the most bytes. Only reports without the first look at the pairs themselves.
    static func selectPair(transportPairIDs: [String], in report: StatsReport) -> StatsEntry? {
        for id in transportPairIDs {
            if let pair = report[id] { return pair }
        }
        var nominated: StatsEntry?
        var nominatedBytes = -1.0
        for pair in report.entries where pair.knownType == .candidatePair {
            if pair.selected == true { return pair }
            if pair.nominated == true, (pair.state ?? "succeeded") == "succeeded" {
                let bytes = (pair.bytesReceived ?? 0) + (pair.bytesSent ?? 0)
                if bytes > nominatedBytes {
                    nominated = pair
                    nominatedBytes = bytes
                }
            }
        }
        return nominated
    }
}
