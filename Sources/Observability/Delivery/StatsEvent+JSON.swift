import RTCStats

// The machine form of every callback payload: docs/spec/observability.md's names (camelCase) and units,
// enums as their lowerCamel raw values, optionals as null. This is the stable `data` object of
// `callscope replay --format ndjson`.

extension StatsEvent {
    /// The payload as a JSON value (publisher callbacks as arrays).
    public var jsonValue: JSONValue {
        switch self {
        case .publisherVideoNetworkStatsUpdated(let stats): .array(stats.map(\.jsonValue))
        case .publisherAudioNetworkStatsUpdated(let stats): .array(stats.map(\.jsonValue))
        case .publisherMediaLinkStatsUpdated(let stats): .array(stats.map(\.jsonValue))
        case .subscriberVideoNetworkStatsUpdated(let stats): stats.jsonValue
        case .subscriberAudioNetworkStatsUpdated(let stats): stats.jsonValue
        case .subscriberMediaLinkStatsUpdated(let stats): stats.jsonValue
        case .publisherNetworkConditionChanged(let stats, let reason):
            .object([StatsField("mediaLinkStats", stats.jsonValue), StatsField("reason", .string(reason.rawValue))])
        case .publisherVideoQualityChanged(let stats, let reason):
            .object([StatsField("stats", stats.jsonValue), StatsField("reason", .string(reason.rawValue))])
        case .subscriberNetworkConditionChanged(let stats, let reason):
            .object([StatsField("mediaLinkStats", stats.jsonValue), StatsField("reason", .string(reason.rawValue))])
        case .subscriberVideoQualityChanged(let stats, let reason):
            .object([StatsField("stats", stats.jsonValue), StatsField("reason", .string(reason.rawValue))])
        case .participantConnectionQualityChanged(let quality):
            .object([StatsField("connectionQuality", .string(quality.rawValue))])
        }
    }
}

private func number(_ value: Double) -> JSONValue { .number(value) }
private func number(_ value: UInt64) -> JSONValue { .number(Double(value)) }
private func number(_ value: Int) -> JSONValue { .number(Double(value)) }
private func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

extension TransportStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("connectionEstimatedBandwidth", number(connectionEstimatedBandwidth)),
            StatsField("networkCondition", .string(networkCondition.rawValue)),
            StatsField("networkConditionReason", .string(networkConditionReason.rawValue)),
        ])
    }
}

extension SenderStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("connectionMaxAllocatedBitrate", number(connectionMaxAllocatedBitrate)),
            StatsField("connectionEstimatedBandwidth", number(connectionEstimatedBandwidth)),
        ])
    }
}

extension PublisherVideoLayerStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("width", number(width)), StatsField("height", number(height)),
            StatsField("encodedFrameRate", number(encodedFrameRate)),
            StatsField("bitrate", number(bitrate)), StatsField("totalBitrate", number(totalBitrate)),
            StatsField("scalabilityMode", text(scalabilityMode)),
            StatsField("qualityLimitationReason", .string(qualityLimitationReason.rawValue)),
            StatsField("codec", text(codec)), StatsField("rid", text(rid)),
        ])
    }
}

extension PublisherVideoNetworkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("connectionId", .string(connectionId)), StatsField("subscriberId", .string(subscriberId)),
            StatsField("videoPacketsLost", number(videoPacketsLost)), StatsField("videoPacketsSent", number(videoPacketsSent)),
            StatsField("videoBytesSent", number(videoBytesSent)), StatsField("videoFrameRate", number(videoFrameRate)),
            StatsField("timestamp", number(timestamp)), StatsField("startTime", number(startTime)),
            StatsField("videoLayers", .array(videoLayers.map(\.jsonValue))), StatsField("transport", transport.jsonValue),
        ])
    }
}

extension PublisherAudioNetworkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("connectionId", .string(connectionId)), StatsField("subscriberId", .string(subscriberId)),
            StatsField("audioPacketsLost", number(audioPacketsLost)), StatsField("audioPacketsSent", number(audioPacketsSent)),
            StatsField("audioBytesSent", number(audioBytesSent)),
            StatsField("timestamp", number(timestamp)), StatsField("startTime", number(startTime)),
            StatsField("transport", transport.jsonValue),
        ])
    }
}

extension PublisherMediaLinkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("connectionId", .string(connectionId)), StatsField("subscriberId", .string(subscriberId)),
            StatsField("transport", transport.jsonValue),
        ])
    }
}

extension SubscriberVideoNetworkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("videoPacketsLost", number(videoPacketsLost)), StatsField("videoPacketsReceived", number(videoPacketsReceived)),
            StatsField("videoBytesReceived", number(videoBytesReceived)),
            StatsField("timestamp", number(timestamp)), StatsField("startTime", number(startTime)),
            StatsField("senderStats", senderStats?.jsonValue ?? .null),
            StatsField("width", number(width)), StatsField("height", number(height)),
            StatsField("decodedFrameRate", number(decodedFrameRate)),
            StatsField("bitrate", number(bitrate)), StatsField("totalBitrate", number(totalBitrate)),
            StatsField("pauseCount", number(pauseCount)), StatsField("totalPausesDuration", number(totalPausesDuration)),
            StatsField("freezeCount", number(freezeCount)), StatsField("totalFreezesDuration", number(totalFreezesDuration)),
            StatsField("codec", text(codec)),
        ])
    }
}

extension SubscriberAudioNetworkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("audioPacketsLost", number(audioPacketsLost)), StatsField("audioPacketsReceived", number(audioPacketsReceived)),
            StatsField("audioBytesReceived", number(audioBytesReceived)),
            StatsField("timestamp", number(timestamp)), StatsField("startTime", number(startTime)),
            StatsField("senderStats", senderStats?.jsonValue ?? .null),
        ])
    }
}

extension SubscriberMediaLinkStats {
    /// JSON form.
    public var jsonValue: JSONValue {
        .object([
            StatsField("transport", transport.jsonValue),
            StatsField("remotePublisherTransport", remotePublisherTransport.jsonValue),
            StatsField("networkDegradationSource", .string(networkDegradationSource.rawValue)),
        ])
    }
}

extension StatsCallback {
    /// One line of `callscope replay --format ndjson`.
    public var ndjsonLine: String {
        Self.ndjsonLine(time: time, endpoint: endpoint, peerConnection: peerConnection.rawValue, stream: stream?.rawValue ?? "",
                        publisher: publisher, callback: event.callbackName, data: event.jsonValue)
    }

    /// `{"t":ms,"peer":..,"pc":..,"stream":..[,"publisher":..],"callback":<name>,"data":{..}}`:
    /// the shape of every callback line (the publisher only when named).
    package static func ndjsonLine(time: Double, endpoint: EndpointID, peerConnection: String, stream: String, publisher: PublisherID?,
                                   callback: String, data: JSONValue) -> String {
        var line = "{\"t\":"
        JSONWriter.writeNumber(time, to: &line)
        line += ",\"peer\":"
        JSONWriter.writeString(endpoint.rawValue, to: &line)
        line += ",\"pc\":"
        JSONWriter.writeString(peerConnection, to: &line)
        line += ",\"stream\":"
        JSONWriter.writeString(stream, to: &line)
        if let publisher, publisher != .unnamed {
            line += ",\"publisher\":"
            JSONWriter.writeString(publisher.rawValue, to: &line)
        }
        line += ",\"callback\":"
        JSONWriter.writeString(callback, to: &line)
        line += ",\"data\":"
        JSONWriter.write(data, to: &line)
        line += "}"
        return line
    }
}
