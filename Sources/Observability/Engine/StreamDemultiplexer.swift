import RTCStats

/// Splits a receive connection's report into its remote streams, so that an SFU connection
/// carrying several publishers gives several subscribers.
///
/// Stream identity, in order of preference:
/// 1. legacy `stream` entries (old Chrome, Safari) map each track to its `streamIdentifier`;
/// 2. a connection with at most one video and one audio receiver carries one stream, named by
///    the caller (`defaultStreamID`), so the stream keeps its identity when the connection is
///    replaced;
/// 3. otherwise each video receiver is a stream named `mid:<mid>` (or its `trackIdentifier`),
///    and each audio receiver joins the video whose `mid` follows it (SFUs such as Janus
///    negotiate a feed's audio then its video); an audio receiver left alone is a stream of
///    its own.
public enum StreamDemultiplexer {
    /// The streams of `report`, ordered by their first receiver's position in the report.
    public static func streams(in report: StatsReport, defaultStreamID: String) -> [(id: String, entries: SubscriberStreamEntries)] {
        streams(in: ReportDigest(report), defaultStreamID: defaultStreamID)
    }

    static func streams(in digest: ReportDigest, defaultStreamID: String) -> [(id: String, entries: SubscriberStreamEntries)] {
        let inbound = digest.inbound.filter { $0.mediaKind == "video" || $0.mediaKind == "audio" }
        guard !inbound.isEmpty else { return [] }
        let videos = inbound.filter { $0.mediaKind == "video" }
        let audios = inbound.filter { $0.mediaKind == "audio" }

        if let legacy = legacyStreams(digest.legacyStreams, inbound: inbound) { return legacy }
        if videos.count <= 1, audios.count <= 1 {
            return [(defaultStreamID, SubscriberStreamEntries(video: videos.first, audio: audios.first))]
        }
        var result: [(id: String, entries: SubscriberStreamEntries)] = videos.map { video in
            (name(of: video), SubscriberStreamEntries(video: video, audio: nil))
        }
        for audio in audios {
            let audioMid = audio.mid.flatMap { Int($0) }
            let partner = result.indices
                .filter { result[$0].entries.audio == nil }
                .compactMap { index -> (Int, Int)? in
                    guard let audioMid, let videoMid = result[index].entries.video?.mid.flatMap({ Int($0) }), videoMid > audioMid else { return nil }
                    return (index, videoMid)
                }
                .min { $0.1 < $1.1 }
            if let (index, _) = partner {
                result[index].entries.audio = audio
            } else {
                result.append((name(of: audio), SubscriberStreamEntries(video: nil, audio: audio)))
            }
        }
        return result
    }

    private static func name(of entry: StatsEntry) -> String {
        if let mid = entry.mid { return "mid:" + mid }
        return entry.trackIdentifier ?? entry.id
    }

    private static func legacyStreams(_ streams: [StatsEntry], inbound: [StatsEntry]) -> [(id: String, entries: SubscriberStreamEntries)]? {
        guard !streams.isEmpty else { return nil }
        var streamByTrack: [String: String] = [:]
        for stream in streams {
            guard let identifier = stream.value(.streamIdentifier)?.string, let tracks = stream.value(.trackIds)?.array else { continue }
            for track in tracks.compactMap(\.string) { streamByTrack[track] = identifier }
        }
        guard !streamByTrack.isEmpty else { return nil }
        var order: [String] = []
        var grouped: [String: SubscriberStreamEntries] = [:]
        for entry in inbound {
            guard let track = entry.trackID, let stream = streamByTrack[track] else { return nil }
            if grouped[stream] == nil {
                order.append(stream)
                grouped[stream] = SubscriberStreamEntries(video: nil, audio: nil)
            }
            if entry.mediaKind == "video", grouped[stream]?.video == nil { grouped[stream]?.video = entry }
            if entry.mediaKind == "audio", grouped[stream]?.audio == nil { grouped[stream]?.audio = entry }
        }
        return order.map { ($0, grouped[$0]!) }
    }
}
