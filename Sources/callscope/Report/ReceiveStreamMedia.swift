import Observability

/// Which receive streams of a call ever carried media, so the report can collapse the others
/// into one line ("10 receive streams carried no media") instead of three empty bands each
/// (real SFU captures hold many receivers that never got a packet).
struct ReceiveStreamMedia {
    /// A subscriber stream as the report names it.
    struct Stream: Hashable {
        /// The endpoint label (the summary rows' `peer`).
        var peer: String
        /// The stream id, empty for a connection's only stream (the summary rows' `stream`).
        var stream: String
        /// The name of its bands and series: the peer, then `[stream]` when there is one.
        var label: String
    }

    private var order: [Stream] = []
    private var seen: Set<Stream> = []
    private var carried: Set<Stream> = []

    /// The report's name of the stream a subscriber callback is about.
    static func label(peer: String, stream: String) -> String {
        peer + (stream.isEmpty ? "" : " [\(stream)]")
    }

    /// Notes the stream of a subscriber callback, and whether it received video or audio.
    mutating func ingest(_ callback: StatsCallback) {
        let received: Bool
        switch callback.event {
        case .subscriberVideoNetworkStatsUpdated(let stats): received = stats.videoPacketsReceived > 0 || stats.videoBytesReceived > 0
        case .subscriberAudioNetworkStatsUpdated(let stats): received = stats.audioPacketsReceived > 0 || stats.audioBytesReceived > 0
        case .subscriberMediaLinkStatsUpdated, .subscriberNetworkConditionChanged, .subscriberVideoQualityChanged: received = false
        default: return
        }
        let peer = callback.endpoint.rawValue, stream = callback.stream?.rawValue ?? ""
        let key = Stream(peer: peer, stream: stream, label: Self.label(peer: peer, stream: stream))
        if seen.insert(key).inserted { order.append(key) }
        if received { carried.insert(key) }
    }

    /// The receive streams that never received a packet or a byte, in the order first seen.
    var withoutMedia: [Stream] { order.filter { !carried.contains($0) } }

    /// The line that stands for them: "1 receive stream carried no media", "10 receive streams
    /// carried no media"; `nil` when every stream carried media.
    var line: String? {
        let count = withoutMedia.count
        return count == 0 ? nil : "\(count) receive stream\(count == 1 ? "" : "s") carried no media"
    }
}
