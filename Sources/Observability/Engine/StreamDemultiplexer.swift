import RTCStats

/// One remote stream found in a receive connection's report.
struct DemultiplexedStream: Sendable {
    var id: StreamID
    var publisher: PublisherID
    var entries: SubscriberStreamEntries
}

/// Splits a receive connection's report into its remote streams, so that an SFU connection
/// carrying several publishers gives several subscribers.
///
/// Stream identity, in order of preference:
/// 1. the caller's ``StreamBinding``s: receivers whose `mid` a binding lists, or the
///    connection's only stream for a binding without mids;
/// 2. legacy `stream` entries (old Chrome, Safari) map each track to its `streamIdentifier`;
/// 3. a connection with at most one video and one audio receiver carries one stream,
///    ``StreamID/sole``, so the stream keeps its identity when the connection is replaced;
/// 4. otherwise each video receiver is a stream named `mid:<mid>` (or its `trackIdentifier`),
///    and each audio receiver joins the video whose `mid` follows it (SFUs such as Janus
///    negotiate a feed's audio then its video); an audio receiver left alone is a stream of
///    its own.
enum StreamDemultiplexer {
    /// The streams of `digest`, bound streams first, then by their first receiver's position.
    static func streams(in digest: ReportDigest, bindings: [StreamBinding]) -> [DemultiplexedStream] {
        var inbound = digest.inbound.filter { $0.mediaKind != nil }
        guard !inbound.isEmpty else { return [] }
        var result: [DemultiplexedStream] = []
        for binding in bindings where !binding.mids.isEmpty {
            var entries = SubscriberStreamEntries(video: nil, audio: nil)
            inbound.removeAll { entry in
                guard let mid = entry.mid, binding.mids.contains(mid) else { return false }
                switch entry.mediaKind {
                case .video? where entries.video == nil: entries.video = entry
                case .audio? where entries.audio == nil: entries.audio = entry
                default: return false
                }
                return true
            }
            if entries.video != nil || entries.audio != nil {
                result.append(DemultiplexedStream(id: binding.stream, publisher: binding.publisher, entries: entries))
            }
        }
        guard !inbound.isEmpty else { return result }
        let sole = bindings.first { $0.mids.isEmpty }
        for (id, entries) in unboundStreams(inbound, legacyStreams: digest.legacyStreams) {
            if id == .sole, let sole {
                result.append(DemultiplexedStream(id: sole.stream, publisher: sole.publisher, entries: entries))
            } else {
                result.append(DemultiplexedStream(id: id, publisher: .unnamed, entries: entries))
            }
        }
        return result
    }

    private static func unboundStreams(_ inbound: [StatsEntry], legacyStreams: [StatsEntry]) -> [(id: StreamID, entries: SubscriberStreamEntries)] {
        let videos = inbound.filter { $0.mediaKind == .video }
        let audios = inbound.filter { $0.mediaKind == .audio }
        if let legacy = legacyGrouping(legacyStreams, inbound: inbound) { return legacy }
        if videos.count <= 1, audios.count <= 1 {
            return [(.sole, SubscriberStreamEntries(video: videos.first, audio: audios.first))]
        }
        var result: [(id: StreamID, entries: SubscriberStreamEntries)] = videos.map { video in
            (name(of: video), SubscriberStreamEntries(video: video, audio: nil))
        }
        for audio in audios {
            let audioMid = audio.mid.flatMap { Int($0) }
            let partner = result.indices
                .filter { result[$0].entries.audio == nil }
                .compactMap { index -> (index: Int, mid: Int)? in
                    guard let audioMid, let videoMid = result[index].entries.video?.mid.flatMap({ Int($0) }), videoMid > audioMid else { return nil }
                    return (index, videoMid)
                }
                .min { $0.mid < $1.mid }
            if let partner {
                result[partner.index].entries.audio = audio
            } else {
                result.append((name(of: audio), SubscriberStreamEntries(video: nil, audio: audio)))
            }
        }
        return result
    }

    private static func name(of entry: StatsEntry) -> StreamID {
        if let mid = entry.mid { return StreamID("mid:" + mid) }
        return StreamID(entry.trackIdentifier ?? entry.id)
    }

    private static func legacyGrouping(_ streams: [StatsEntry], inbound: [StatsEntry]) -> [(id: StreamID, entries: SubscriberStreamEntries)]? {
        guard !streams.isEmpty else { return nil }
        // Runs on every report: tables sized from the start, and one look-up per receiver.
        var streamByTrack: [String: String] = [:]
        streamByTrack.reserveCapacity(2 * streams.count)
        for stream in streams {
            guard let identifier = stream.value(.streamIdentifier)?.string, let tracks = stream.value(.trackIds)?.array else { continue }
            for track in tracks.compactMap(\.string) { streamByTrack[track] = identifier }
        }
        guard !streamByTrack.isEmpty else { return nil }
        var result: [(id: StreamID, entries: SubscriberStreamEntries)] = []
        var positions: [String: Int] = [:]
        positions.reserveCapacity(inbound.count)
        for entry in inbound {
            guard let track = entry.trackID, let stream = streamByTrack[track] else { return nil }
            let position: Int
            if let known = positions[stream] {
                position = known
            } else {
                position = result.count
                positions[stream] = position
                result.append((StreamID(stream), SubscriberStreamEntries(video: nil, audio: nil)))
            }
            switch entry.mediaKind {
            case .video? where result[position].entries.video == nil: result[position].entries.video = entry
            case .audio? where result[position].entries.audio == nil: result[position].entries.audio = entry
            default: break
            }
        }
        return result
    }
}
