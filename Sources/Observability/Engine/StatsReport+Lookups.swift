import RTCStats

extension StatsReport {
    /// The codec mime subtype (`VP8`, `opus`, ...) an RTP entry uses, through its `codecId`.
    func codecName(of entry: StatsEntry) -> String? {
        guard let id = entry.codecID, let mime = self[id]?.mimeType else { return nil }
        let utf8 = mime.utf8
        guard let slash = utf8.firstIndex(of: UInt8(ascii: "/")) else { return mime }
        return String(Substring(utf8[utf8.index(after: slash)...]))
    }

    /// The legacy `track` entry an RTP entry points to with `trackId` (old Chrome, Safari).
    func legacyTrack(of entry: StatsEntry) -> StatsEntry? {
        guard let id = entry.trackID else { return nil }
        return self[id]
    }
}

extension StatsEntry {
    /// A known field from this entry, or from its legacy `track` entry when this one lacks it.
    func number(_ field: KnownField, orFrom fallback: StatsEntry?) -> Double? {
        value(field)?.number ?? fallback?.value(field)?.number
    }

    /// `kind`, also for entries that only say it through their id (old Chrome).
    var mediaKind: MediaKind? {
        if let kind { return MediaKind(w3c: kind) }
        // Legacy ids carry the kind: RTCOutboundRTPVideoStream_…, RTCInboundRTPAudioStream_….
        if id.contains("Video") || id.contains("video") { return .video }
        if id.contains("Audio") || id.contains("audio") { return .audio }
        return nil
    }
}
