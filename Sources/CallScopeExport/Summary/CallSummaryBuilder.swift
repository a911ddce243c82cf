import Observability

/// Builds the ``StreamSummary`` rows of one call from its callbacks, in order.
public struct CallSummaryBuilder: Sendable {
    fileprivate struct Key: Hashable {
        var peer: String
        var stream: String
        var direction: StreamSummary.Direction
    }

    fileprivate struct Accumulator {
        var row: StreamSummary
        var firstTime: Double?
        var lastTime: Double?
        var previousLinkTime: Double?
        var videoCallbacks = 0
    }

    private let call: String
    private var streams: [Key: Accumulator] = [:]
    private var order: [Key] = []

    /// Starts the rows of `call`.
    public init(call: String) { self.call = call }

    /// Adds one callback.
    public mutating func ingest(_ callback: StatsCallback) {
        guard callback.time.isFinite else { return }
        switch callback.event {
        case .publisherVideoNetworkStatsUpdated(let links):
            for stats in links {
                update(Key(peer: callback.endpoint.rawValue, stream: stats.connectionId, direction: .sending)) { accumulator in
                    accumulator.markVideo(callback.time)
                    if accumulator.videoCallbacks > 1 { accumulator.row.bitrateSamples.append(stats.videoLayers.reduce(0) { $0 + $1.bitrate }) }
                    accumulator.row.packetsLost = stats.videoPacketsLost
                    accumulator.row.packetsExpected = stats.videoPacketsSent
                }
            }
        case .publisherMediaLinkStatsUpdated(let links):
            for stats in links {
                update(Key(peer: callback.endpoint.rawValue, stream: stats.connectionId, direction: .sending)) { accumulator in
                    let interval = accumulator.linkInterval(callback.time)
                    accumulator.row.conditionSeconds[stats.transport.networkCondition, default: 0] += interval
                }
            }
        case .subscriberVideoNetworkStatsUpdated(let stats):
            update(Key(peer: callback.endpoint.rawValue, stream: callback.stream?.rawValue ?? "", direction: .receiving)) { accumulator in
                accumulator.markVideo(callback.time)
                if accumulator.videoCallbacks > 1 { accumulator.row.bitrateSamples.append(stats.bitrate) }
                accumulator.row.packetsLost = stats.videoPacketsLost
                accumulator.row.packetsExpected = stats.videoPacketsReceived + stats.videoPacketsLost
                accumulator.row.freezeCount = stats.freezeCount
                accumulator.row.freezeDuration = stats.totalFreezesDuration / 1000
            }
        case .subscriberMediaLinkStatsUpdated(let stats):
            update(Key(peer: callback.endpoint.rawValue, stream: callback.stream?.rawValue ?? "", direction: .receiving)) { accumulator in
                let interval = accumulator.linkInterval(callback.time)
                accumulator.row.conditionSeconds[stats.transport.networkCondition, default: 0] += interval
                accumulator.row.degradationSeconds[stats.networkDegradationSource, default: 0] += interval
            }
        default:
            break
        }
    }

    /// One row per stream that had video callbacks, in order of first appearance.
    public func summaries() -> [StreamSummary] {
        order.compactMap { key in
            guard let accumulator = streams[key], accumulator.videoCallbacks > 0 else { return nil }
            var row = accumulator.row
            row.duration = ((accumulator.lastTime ?? 0) - (accumulator.firstTime ?? 0)) / 1000
            row.meanBitrate = row.bitrateSamples.isEmpty ? 0 : row.bitrateSamples.reduce(0, +) / Double(row.bitrateSamples.count)
            row.p5Bitrate = StreamSummary.percentile5(row.bitrateSamples)
            return row
        }
    }

    private mutating func update(_ key: Key, _ change: (inout Accumulator) -> Void) {
        if streams[key] == nil {
            streams[key] = Accumulator(row: StreamSummary(call: call, peer: key.peer, stream: key.stream, direction: key.direction))
            order.append(key)
        }
        change(&streams[key]!)
    }
}

private extension CallSummaryBuilder.Accumulator {
    mutating func markVideo(_ time: Double) {
        videoCallbacks += 1
        firstTime = min(firstTime ?? time, time)
        lastTime = max(lastTime ?? time, time)
    }

    /// Seconds since the previous link callback of this stream (0 for the first).
    mutating func linkInterval(_ time: Double) -> Double {
        defer { previousLinkTime = time }
        return previousLinkTime.map { max(0, time - $0) / 1000 } ?? 0
    }
}
