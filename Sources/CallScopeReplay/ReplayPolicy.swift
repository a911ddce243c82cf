import Observability
import RTCStats

/// What a replay infers from a whole recording before feeding it: each endpoint's session
/// mode, the publisher's allocation, who publishes, and which stream each receiving connection
/// continues.
struct ReplayPolicy: Sendable {
    /// Relayed when an endpoint's publishing connections overlap in time (one per subscriber).
    var sessionModes: [EndpointID: CallStatsEngine.SessionMode] = [:]
    /// The publisher's `connectionMaxAllocatedBitrate` from the recording header, when given.
    var maxAllocatedBitrate: Double?
    /// Endpoints that send media, in order of first appearance.
    var producers: [EndpointID] = []
    /// The stream each receiving connection carries when the recording does not say.
    var inferredBindings: [ConnectionKey: StreamBinding] = [:]
    /// The recording holds received sender-stats messages.
    var hasSenderStatsLines = false

    struct ConnectionKey: Hashable, Sendable {
        var endpoint: EndpointID
        var peerConnection: PeerConnectionID
    }

    init(_ timeline: StatsTimeline) {
        maxAllocatedBitrate = Self.maxAllocatedBitrate(of: timeline)
        var sending: [EndpointID: [PeerConnectionID: ClosedRange<Double>]] = [:]
        var receiving: [EndpointID: [PeerConnectionID: ClosedRange<Double>]] = [:]
        for item in timeline.items {
            guard case .sample(let sample) = item else {
                if case .event(let event) = item, event.name == TimelineEventName.senderStats { hasSenderStatsLines = true }
                continue
            }
            let endpoint = EndpointID(sample.peer), connection = PeerConnectionID(sample.peerConnection)
            // One pass, no set per sample (this runs over every sample before the replay).
            var sends = false, receives = false
            for entry in sample.report.entries {
                switch entry.knownType {
                case .outboundRTP?: sends = true
                case .inboundRTP?: receives = true
                default: break
                }
                if sends && receives { break }
            }
            if sends {
                if !producers.contains(endpoint) { producers.append(endpoint) }
                sending[endpoint, default: [:]][connection] = Self.extend(sending[endpoint]?[connection], with: sample.time)
            }
            if receives {
                receiving[endpoint, default: [:]][connection] = Self.extend(receiving[endpoint]?[connection], with: sample.time)
            }
        }
        for (endpoint, connections) in sending {
            sessionModes[endpoint] = Self.anyOverlap(Array(connections.values)) ? .relayed : .routed
        }
        let publisher = producers.count == 1 ? PublisherID(producers[0].rawValue) : PublisherID.unnamed
        for (endpoint, connections) in receiving {
            for (connection, stream) in Self.chains(connections) {
                inferredBindings[ConnectionKey(endpoint: endpoint, peerConnection: connection)] = StreamBinding(stream: stream, publisher: publisher)
            }
        }
    }

    /// The publisher a message with no `publisher` field came from: the only producer, if any.
    var soleProducer: PublisherID? { producers.count == 1 ? PublisherID(producers[0].rawValue) : nil }

    /// Connections that overlap in time run in parallel, each its own stream; one that starts
    /// after another ended replaces it and continues its stream. The first chain is the
    /// connection's ``StreamID/sole`` stream; later parallel chains are named by their first
    /// connection.
    static func chains(_ spans: [PeerConnectionID: ClosedRange<Double>]) -> [(PeerConnectionID, StreamID)] {
        let ordered = spans.sorted { ($0.value.lowerBound, $0.key) < ($1.value.lowerBound, $1.key) }
        var chains: [(stream: StreamID, end: Double)] = []
        var result: [(PeerConnectionID, StreamID)] = []
        for (connection, span) in ordered {
            if let index = chains.firstIndex(where: { $0.end < span.lowerBound }) {
                chains[index].end = span.upperBound
                result.append((connection, chains[index].stream))
            } else {
                let stream = chains.isEmpty ? StreamID.sole : StreamID(connection.rawValue)
                chains.append((stream, span.upperBound))
                result.append((connection, stream))
            }
        }
        return result
    }

    private static func extend(_ span: ClosedRange<Double>?, with time: Double) -> ClosedRange<Double> {
        span.map { min($0.lowerBound, time)...max($0.upperBound, time) } ?? time...time
    }

    private static func anyOverlap(_ spans: [ClosedRange<Double>]) -> Bool {
        for index in spans.indices {
            for other in spans.indices where other > index && spans[index].overlaps(spans[other]) { return true }
        }
        return false
    }

    /// The publisher's `connectionMaxAllocatedBitrate` as its SDK would know it from its
    /// settings: a recording header's `video.simulcast.maxBitrate` plus `audio.maxBitrate`
    /// (64 kbps when the header has audio but no figure). `nil` when the header does not say.
    static func maxAllocatedBitrate(of timeline: StatsTimeline) -> Double? {
        let header = JSONValue.object(timeline.metadata)
        guard let layers = header["video"]?["simulcast"]?["maxBitrate"]?.array?.compactMap(\.number), !layers.isEmpty else { return nil }
        let audio = header["audio"].map { $0["maxBitrate"]?.number ?? 64_000 } ?? 0
        return layers.reduce(0, +) + audio
    }
}
