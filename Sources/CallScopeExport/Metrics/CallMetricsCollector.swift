import Observability

/// Turns the engine's callbacks into metrics: counters from the cumulative totals, gauges from
/// the latest values, and seconds per condition from the per-second link callbacks.
///
/// A value type: feed it every ``StatsCallback`` of a call in order, take a ``snapshot()``
/// whenever an exporter should send. Time in a condition is the interval since the previous
/// link callback of the same link, counted for the condition that callback reports (the
/// engine reports each second's verdict at its end).
public struct CallMetricsCollector: Sendable {
    private var values: [String: [[CallMetricLabel]: Double]] = [:]
    private var previousLinkTime: [[CallMetricLabel]: Double] = [:]
    private var startTime: Double?
    private var lastTime: Double?

    /// Creates an empty collector.
    public init() {}

    /// Adds one callback.
    public mutating func ingest(_ callback: StatsCallback) {
        guard callback.time.isFinite else { return }
        startTime = min(startTime ?? callback.time, callback.time)
        lastTime = max(lastTime ?? callback.time, callback.time)
        set(.lastSampleTime, [], (lastTime ?? 0) / 1000)
        let peer = CallMetricLabel("peer", callback.endpoint.rawValue)
        let stream = CallMetricLabel("stream", callback.stream?.rawValue ?? "")
        switch callback.event {
        case .publisherVideoNetworkStatsUpdated(let links):
            for stats in links {
                let base = labels(peer, CallMetricLabel("connection", stats.connectionId))
                set(.publisherVideoSentBytes, base, Double(stats.videoBytesSent))
                set(.publisherVideoSentPackets, base, Double(stats.videoPacketsSent))
                set(.publisherVideoLostPackets, base, Double(stats.videoPacketsLost))
                set(.publisherSendingLayers, base, Double(stats.videoLayers.count))
                clearLayers(base)
                for (index, layer) in stats.videoLayers.enumerated() {
                    let layerLabels = base + [CallMetricLabel("layer", layer.rid ?? String(index))]
                    set(.publisherLayerBitrate, layerLabels, layer.bitrate)
                    set(.publisherLayerWireBitrate, layerLabels, layer.totalBitrate)
                    set(.publisherLayerFrameRate, layerLabels, layer.encodedFrameRate)
                    set(.publisherLayerFrameHeight, layerLabels, Double(layer.height))
                }
            }
        case .publisherAudioNetworkStatsUpdated(let links):
            for stats in links {
                let base = labels(peer, CallMetricLabel("connection", stats.connectionId))
                set(.publisherAudioSentBytes, base, Double(stats.audioBytesSent))
                set(.publisherAudioLostPackets, base, Double(stats.audioPacketsLost))
            }
        case .publisherMediaLinkStatsUpdated(let links):
            for stats in links {
                let base = labels(peer, CallMetricLabel("connection", stats.connectionId))
                set(.publisherEstimatedBandwidth, base, stats.transport.connectionEstimatedBandwidth)
                recordCondition(base + [CallMetricLabel("link", "uplink")], stats.transport.networkCondition, time: callback.time)
            }
        case .subscriberVideoNetworkStatsUpdated(let stats):
            let base = labels(peer, stream)
            set(.subscriberVideoReceivedBytes, base, Double(stats.videoBytesReceived))
            set(.subscriberVideoReceivedPackets, base, Double(stats.videoPacketsReceived))
            set(.subscriberVideoLostPackets, base, Double(stats.videoPacketsLost))
            set(.subscriberVideoBitrate, base, stats.bitrate)
            set(.subscriberVideoWireBitrate, base, stats.totalBitrate)
            set(.subscriberVideoFrameRate, base, stats.decodedFrameRate)
            set(.subscriberVideoFrameHeight, base, Double(stats.height))
            set(.subscriberFreezes, base, Double(stats.freezeCount))
            set(.subscriberFreezeSeconds, base, stats.totalFreezesDuration / 1000)
            set(.subscriberPauses, base, Double(stats.pauseCount))
            set(.subscriberPauseSeconds, base, stats.totalPausesDuration / 1000)
        case .subscriberAudioNetworkStatsUpdated(let stats):
            let base = labels(peer, stream)
            set(.subscriberAudioReceivedBytes, base, Double(stats.audioBytesReceived))
            set(.subscriberAudioLostPackets, base, Double(stats.audioPacketsLost))
        case .subscriberMediaLinkStatsUpdated(let stats):
            let base = labels(peer, stream)
            set(.subscriberEstimatedBandwidth, base, stats.transport.connectionEstimatedBandwidth)
            let interval = recordCondition(base + [CallMetricLabel("link", "downlink")], stats.transport.networkCondition, time: callback.time)
            recordCondition(base + [CallMetricLabel("link", "remote_uplink")], stats.remotePublisherTransport.networkCondition, time: callback.time)
            for source in NetworkDegradationSource.allCases {
                let sourceLabels = base + [CallMetricLabel("source", source.rawValue)]
                set(.degradationSource, sourceLabels, source == stats.networkDegradationSource ? 1 : 0)
                add(.degradationSourceSeconds, sourceLabels, source == stats.networkDegradationSource ? interval : 0)
            }
        case .publisherNetworkConditionChanged(let stats, _):
            add(.networkConditionChanges, labels(peer, CallMetricLabel("connection", stats.connectionId)) + [CallMetricLabel("link", "uplink")], 1)
        case .subscriberNetworkConditionChanged:
            add(.networkConditionChanges, labels(peer, stream) + [CallMetricLabel("link", "downlink")], 1)
        case .publisherVideoQualityChanged(_, let reason):
            add(.videoQualityChanges, labels(peer) + [CallMetricLabel("reason", reason.rawValue)], 1)
        case .subscriberVideoQualityChanged(_, let reason):
            add(.videoQualityChanges, labels(peer, stream) + [CallMetricLabel("reason", reason.rawValue)], 1)
        case .participantConnectionQualityChanged(let quality):
            for level in ConnectionQuality.allCases {
                set(.connectionQuality, labels(peer, stream) + [CallMetricLabel("quality", level.rawValue)], level == quality ? 1 : 0)
            }
        }
    }

    /// Starts the next call of a probe that keeps one collector for many calls (`callscope
    /// probe`): a link's first callback in the new call starts its interval anew (the gap
    /// between calls counts in no condition), and the series of the previous call's streams
    /// (those labelled `stream`: each call subscribes to new stream ids) are dropped, so the
    /// metrics hold one call's streams, not every call's. Series without a stream (the
    /// publisher's, the last sample time) stay; their totals start again from the new call's.
    public mutating func startNewCall() {
        previousLinkTime.removeAll()
        for (name, points) in values {
            values[name] = points.filter { key, _ in !key.contains { $0.name == "stream" } }
        }
    }

    /// Every metric as it stands, in the catalog's order.
    public func snapshot() -> CallMetricsSnapshot {
        let families = CallMetricDescriptor.catalog.compactMap { descriptor -> CallMetricFamily? in
            guard let points = values[descriptor.prometheusName], !points.isEmpty else { return nil }
            let sorted = points.map { CallMetricPoint(labels: $0.key, value: $0.value) }
                .sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
            return CallMetricFamily(descriptor: descriptor, points: sorted)
        }
        return CallMetricsSnapshot(time: lastTime ?? 0, startTime: startTime ?? 0, families: families)
    }

    // MARK: Helpers

    /// Labels without the empty ones (Prometheus treats an empty value as an absent label).
    private func labels(_ list: CallMetricLabel...) -> [CallMetricLabel] {
        list.filter { !$0.value.isEmpty }
    }

    private mutating func set(_ descriptor: CallMetricDescriptor, _ labels: [CallMetricLabel], _ value: Double) {
        values[descriptor.prometheusName, default: [:]][labels.sorted()] = value.isFinite ? value : 0
    }

    private mutating func add(_ descriptor: CallMetricDescriptor, _ labels: [CallMetricLabel], _ value: Double) {
        values[descriptor.prometheusName, default: [:]][labels.sorted(), default: 0] += value.isFinite ? value : 0
    }

    /// A layer that stopped sending must not keep its last bitrate.
    private mutating func clearLayers(_ base: [CallMetricLabel]) {
        let sortedBase = Set(base)
        for descriptor in [CallMetricDescriptor.publisherLayerBitrate, .publisherLayerWireBitrate, .publisherLayerFrameRate, .publisherLayerFrameHeight] {
            guard var points = values[descriptor.prometheusName] else { continue }
            for key in points.keys where Set(key.filter { $0.name != "layer" }) == sortedBase { points[key] = nil }
            values[descriptor.prometheusName] = points
        }
    }

    /// Sets the condition state set of a link and adds the interval since its previous callback
    /// to the seconds of the reported condition. Returns that interval, s.
    @discardableResult
    private mutating func recordCondition(_ link: [CallMetricLabel], _ condition: NetworkCondition, time: Double) -> Double {
        let key = link.sorted()
        let interval = previousLinkTime[key].map { max(0, time - $0) / 1000 } ?? 0
        previousLinkTime[key] = time
        for level in NetworkCondition.allCases {
            let levelLabels = link + [CallMetricLabel("condition", level.rawValue)]
            set(.networkCondition, levelLabels, level == condition ? 1 : 0)
            add(.networkConditionSeconds, levelLabels, level == condition ? interval : 0)
        }
        return interval
    }
}
