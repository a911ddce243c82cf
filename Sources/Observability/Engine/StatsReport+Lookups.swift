import RTCStats

extension StatsReport {
    /// The candidate pair carrying media: the transport's `selectedCandidatePairId` (Chrome,
    /// Safari), else the pair marked `selected` (Firefox), else the nominated succeeded pair
    /// with the most bytes.
    var selectedCandidatePair: StatsEntry? {
        for transport in entries(ofType: .transport) {
            if let id = transport.selectedCandidatePairID, let pair = self[id] { return pair }
        }
        let pairs = entries(ofType: .candidatePair)
        if let selected = pairs.first(where: { $0.bool("selected") == true }) { return selected }
        return pairs
            .filter { $0.bool("nominated") == true && ($0.string("state") ?? "succeeded") == "succeeded" }
            .max { ($0.number("bytesReceived") ?? 0) + ($0.number("bytesSent") ?? 0) < ($1.number("bytesReceived") ?? 0) + ($1.number("bytesSent") ?? 0) }
    }

    /// The codec mime subtype (`VP8`, `opus`, ...) an RTP entry uses, through its `codecId`.
    func codecName(of entry: StatsEntry) -> String? {
        guard let id = entry.codecID, let mime = self[id]?.mimeType else { return nil }
        guard let slash = mime.firstIndex(of: "/") else { return mime }
        return String(mime[mime.index(after: slash)...])
    }

    /// The legacy `track` entry an RTP entry points to with `trackId` (old Chrome, Safari).
    func legacyTrack(of entry: StatsEntry) -> StatsEntry? {
        guard let id = entry.string("trackId") else { return nil }
        return self[id]
    }

    /// The `remote-inbound-rtp` entries describing this report's outbound streams, keyed by the
    /// `outbound-rtp` id (`localId`; failing that, the SSRC).
    func remoteInboundByLocalID() -> [String: StatsEntry] {
        var result: [String: StatsEntry] = [:]
        let outbound = entries(ofType: .outboundRTP)
        for remote in entries(ofType: .remoteInboundRTP) {
            if let local = remote.localID {
                result[local] = remote
            } else if let ssrc = remote.ssrc, let match = outbound.first(where: { $0.ssrc == ssrc }) {
                result[match.id] = remote
            }
        }
        return result
    }
}

extension StatsEntry {
    /// A field from this entry, or from its legacy `track` entry when this one lacks it.
    func number(_ name: String, orFrom fallback: StatsEntry?) -> Double? {
        number(name) ?? fallback?.number(name)
    }

    /// `kind`, also for entries that only say it through their id (old Chrome) or codec.
    var mediaKind: String? {
        if let kind { return kind }
        if id.contains("Video") || id.contains("video") { return "video" }
        if id.contains("Audio") || id.contains("audio") { return "audio" }
        return nil
    }
}
