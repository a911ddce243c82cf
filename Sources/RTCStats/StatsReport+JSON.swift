extension StatsReport {
    /// Reads a `getStats()` result serialised as JSON: an array of entries, or an object keyed
    /// by entry id (what `Object.fromEntries(report)` gives).
    ///
    /// - Parameter defaultTimestamp: used for entries without a `timestamp` (ms since the epoch).
    public init(json bytes: [UInt8], defaultTimestamp: Double? = nil) throws(StatsParseError) {
        if let entries = try JSONParser.parseEntries(JSONDocument(bytes), defaultTimestamp: defaultTimestamp) {
            self.init(entries: entries)
            return
        }
        let value = try JSONParser.parse(bytes)
        try self.init(jsonValue: value, defaultTimestamp: defaultTimestamp)
    }

    /// Reads a `getStats()` result from an already-parsed JSON value (array or id-keyed object).
    public init(jsonValue value: JSONValue, defaultTimestamp: Double? = nil) throws(StatsParseError) {
        var entries: [StatsEntry] = []
        switch value {
        case .array(let elements):
            entries.reserveCapacity(elements.count)
            // Entries without a timestamp (app-added ones) take the report's latest.
            let reportTime = defaultTimestamp ?? elements.compactMap { ($0["value"] ?? $0)["timestamp"]?.number }.max()
            for (index, element) in elements.enumerated() {
                guard case .object(var fields) = element else {
                    throw StatsParseError(.unexpectedShape, "report element \(index) is not an object")
                }
                // A serialised Map: [{"key": id, "value": entry}].
                if fields.count == 2, fields[0].name == "key", fields[1].name == "value", case .object(let inner) = fields[1].value {
                    fields = inner
                }
                entries.append(try StatsEntry(fields: fields, fallbackID: nil, defaultTimestamp: reportTime))
            }
        case .object(let members):
            entries.reserveCapacity(members.count)
            for member in members {
                guard case .object(let fields) = member.value else {
                    // Delta-compressed dumps carry a report-level "timestamp" member: not an entry.
                    continue
                }
                entries.append(try StatsEntry(fields: fields, fallbackID: member.name, defaultTimestamp: defaultTimestamp))
            }
        default:
            throw StatsParseError(.unexpectedShape, "a stats report must be a JSON array of entries or an object keyed by id")
        }
        self.init(entries: entries)
    }

    /// The report as a JSON array in the browser's `RTCStatsReport` shape (every field kept).
    public func jsonArray() -> String {
        var output = "["
        for (index, entry) in entries.enumerated() {
            if index > 0 { output += "," }
            entry.writeJSON(to: &output)
        }
        output += "]"
        return output
    }
}

extension StatsEntry {
    /// Builds an entry from the members of a JSON object, taking `id`, `type` and `timestamp` out.
    ///
    /// A missing `type` is inferred from the id's prefix the way legacy Chrome named its entries
    /// (`RTCOutboundRTPVideoStream_…` → `outbound-rtp`); a missing `timestamp` uses
    /// `defaultTimestamp`.
    public init(fields: [StatsField], fallbackID: String?, defaultTimestamp: Double?) throws(StatsParseError) {
        var id = fallbackID
        var type: String?
        var timestamp: Double?
        var rest: [StatsField] = []
        rest.reserveCapacity(fields.count)
        for field in fields {
            switch field.name {
            case "id": if let value = field.value.string { id = value } else { rest.append(field) }
            case "type": if let value = field.value.string { type = value } else { rest.append(field) }
            case "timestamp": if let value = field.value.number { timestamp = value } else { rest.append(field) }
            default: rest.append(field)
            }
        }
        guard let id else {
            throw StatsParseError(.unexpectedShape, "a stats entry has no \"id\"")
        }
        if let defaultTimestamp, timestamp == nil || timestamp == 0 { timestamp = defaultTimestamp }
        guard let timestamp else {
            throw StatsParseError(.unexpectedShape, "stats entry \"\(id)\" has no numeric \"timestamp\"")
        }
        let resolvedType = type.map(StatsType.init(rawValue:)) ?? StatsType(inferredFromID: id) ?? StatsType(rawValue: "unknown")
        self.init(id: id, type: resolvedType, timestamp: timestamp, fields: rest)
    }
}

extension StatsType {
    /// The type legacy Chrome (and old `webrtc-internals` dumps) implied by an id's prefix.
    public init?(inferredFromID id: String) {
        let prefixes: [(String, StatsType)] = [
            ("RTCOutboundRTP", .outboundRTP), ("RTCInboundRTP", .inboundRTP),
            ("RTCRemoteInboundRtp", .remoteInboundRTP), ("RTCRemoteOutboundRTP", .remoteOutboundRTP),
            ("RTCAudioSource", .mediaSource), ("RTCVideoSource", .mediaSource),
            ("RTCIceCandidatePair", .candidatePair), ("RTCIceCandidate", .localCandidate),
            ("RTCTransport", .transport), ("RTCCodec", .codec), ("RTCCertificate", .certificate),
            ("RTCPeerConnection", .peerConnection), ("RTCDataChannel", .dataChannel),
            ("RTCMediaStreamTrack", .track), ("RTCMediaStream", .stream), ("RTCAudioPlayout", .mediaPlayout),
            // Chrome 120+ short ids: OT = outbound, IT = inbound, RI/RO = remote, CP = pair, I = candidate.
            ("OT", .outboundRTP), ("IT", .inboundRTP), ("RI", .remoteInboundRTP), ("RO", .remoteOutboundRTP),
            ("CP", .candidatePair), ("SV", .mediaSource), ("SA", .mediaSource), ("CI", .codec), ("CO", .codec),
            ("P", .peerConnection), ("T", .transport), ("D", .dataChannel), ("I", .localCandidate), ("AP", .mediaPlayout),
        ]
        for (prefix, type) in prefixes where id.hasPrefix(prefix) {
            self = type
            return
        }
        return nil
    }
}
