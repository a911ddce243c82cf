extension JingleSession {
    /// The SDP attributes an RTP m-line maps field by field; every other one is kept verbatim
    /// in ``JingleRTPDescription/otherAttributes``, except the transport and session ones
    /// that are regenerated.
    static let mappedAttributes: Set<String> = [
        "mid", "sendrecv", "sendonly", "recvonly", "inactive", "rtpmap", "fmtp", "rtcp-fb", "extmap", "extmap-allow-mixed",
        "rtcp-mux", "rtcp-rsize", "ssrc", "ssrc-group", "msid", "rid", "simulcast", "ice-ufrag", "ice-pwd", "ice-options",
        "candidate", "end-of-candidates", "fingerprint", "setup", "rtcp", "sctp-port", "sctpmap", "max-message-size",
    ]

    /// The RTP description of an audio or video m-line.
    static func rtpDescription(_ section: SDPDocument.MediaSection, index: Int, allowsMixed: Bool, writtenBy role: JingleRole,
                               limits: JingleLimits) throws(JingleError) -> JingleRTPDescription {
        var description = JingleRTPDescription(media: section.media, rtcpMux: section.has("rtcp-mux"), reducedSizeRTCP: section.has("rtcp-rsize"))
        description.allowsMixedHeaderExtensions = allowsMixed || section.has("extmap-allow-mixed")
        var positions: [UInt8: Int] = [:]
        for format in section.formats {
            guard let id = decimal(format, as: UInt8.self), id <= 127 else {
                throw JingleError(.malformedSDP, "m-line \(index) lists the payload type '\(format.prefix(20))'")
            }
            guard positions[id] == nil else { continue }
            positions[id] = description.payloadTypes.count
            description.payloadTypes.append(JinglePayloadType(id: id, name: ""))
        }
        // `PT rest` of a=rtpmap / a=fmtp / a=rtcp-fb; nil for a payload type not in the m-line.
        func split(_ value: String, _ key: String) throws(JingleError) -> (position: Int?, rest: Substring)? {
            guard let space = value.firstIndex(of: " ") else { throw JingleError(.malformedSDP, "a=\(key):\(value.prefix(40)) has no space") }
            let head = value[..<space], rest = value[value.index(after: space)...]
            if head == "*" { return (nil, rest) }
            guard let id = decimal(head, as: UInt8.self) else { throw JingleError(.malformedSDP, "a=\(key):\(value.prefix(40)) has no payload type") }
            guard let position = positions[id] else { return nil }
            return (position, rest)
        }
        for attribute in section.attributes {
            switch attribute.key {
            case "rtpmap":
                guard let (position, rest) = try split(attribute.value, "rtpmap"), let position else { continue }
                let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count >= 2, parts.count <= 3, isToken(parts[0]), let clockRate = decimal(parts[1], as: UInt32.self) else {
                    throw JingleError(.malformedSDP, "a=rtpmap:\(attribute.value.prefix(40)) is not 'PT NAME/RATE[/CHANNELS]'")
                }
                description.payloadTypes[position].name = String(parts[0])
                description.payloadTypes[position].clockRate = clockRate
                if parts.count == 3 {
                    guard let channels = decimal(parts[2], as: UInt8.self) else { throw JingleError(.malformedSDP, "a=rtpmap:\(attribute.value.prefix(40)) channels") }
                    description.payloadTypes[position].channels = channels
                }
            case "fmtp":
                guard let (position, rest) = try split(attribute.value, "fmtp"), let position else { continue }
                let pieces = rest.split(separator: ";", omittingEmptySubsequences: true)
                guard description.payloadTypes[position].parameters.count + pieces.count <= limits.maximumParametersPerPayloadType else {
                    throw JingleError(.limitExceeded, "a=fmtp:\(attribute.value.prefix(20)) has over \(limits.maximumParametersPerPayloadType) parameters")
                }
                for piece in pieces {
                    let text = trimmed(String(piece))
                    if let equals = text.firstIndex(of: "=") {
                        let name = String(text[..<equals]), value = String(text[text.index(after: equals)...])
                        guard isToken(name), value.isEmpty || isToken(value) else { throw JingleError(.malformedSDP, "a=fmtp parameter '\(text.prefix(40))'") }
                        description.payloadTypes[position].parameters.append(JingleParameter(name: name, value: value))
                    } else {
                        guard isToken(text) else { throw JingleError(.malformedSDP, "a=fmtp parameter '\(text.prefix(40))'") }
                        description.payloadTypes[position].parameters.append(JingleParameter(name: "", value: text))
                    }
                }
            case "rtcp-fb":
                guard let (position, rest) = try split(attribute.value, "rtcp-fb") else { continue }
                let fields = rest.split(separator: " ", omittingEmptySubsequences: true)
                guard let type = fields.first, isToken(type) else { throw JingleError(.malformedSDP, "a=rtcp-fb:\(attribute.value.prefix(40))") }
                let feedback = JingleRTCPFeedback(type: String(type), subtype: fields.count > 1 ? fields.dropFirst().joined(separator: " ") : nil)
                if let position {
                    guard description.payloadTypes[position].feedback.count < limits.maximumParametersPerPayloadType else {
                        throw JingleError(.limitExceeded, "over \(limits.maximumParametersPerPayloadType) a=rtcp-fb for one payload type")
                    }
                    description.payloadTypes[position].feedback.append(feedback)
                } else {
                    guard description.feedback.count < limits.maximumParametersPerPayloadType else {
                        throw JingleError(.limitExceeded, "over \(limits.maximumParametersPerPayloadType) a=rtcp-fb:*")
                    }
                    description.feedback.append(feedback)
                }
            case "extmap":
                guard description.headerExtensions.count < limits.maximumHeaderExtensions else {
                    throw JingleError(.limitExceeded, "over \(limits.maximumHeaderExtensions) a=extmap in m-line \(index)")
                }
                description.headerExtensions.append(try headerExtension(attribute.value, writtenBy: role))
            case "ssrc":
                try addSource(attribute.value, to: &description, limits: limits)
            case "ssrc-group":
                let fields = attribute.value.split(separator: " ", omittingEmptySubsequences: true)
                guard let semantics = fields.first, isToken(semantics), description.sourceGroups.count < limits.maximumSources,
                      fields.count - 1 <= limits.maximumSources else {
                    throw JingleError(.malformedSDP, "a=ssrc-group:\(attribute.value.prefix(40)) has no semantics or is over the limits")
                }
                var ssrcs: [UInt32] = []
                for field in fields.dropFirst() {
                    guard let ssrc = decimal(field, as: UInt32.self) else { throw JingleError(.malformedSDP, "a=ssrc-group SSRC '\(field.prefix(20))'") }
                    ssrcs.append(ssrc)
                }
                description.sourceGroups.append(JingleSourceGroup(semantics: String(semantics), ssrcs: ssrcs))
            case "msid":
                description.streamID = try sdpLine(attribute.value, "a=msid")
            case "rid":
                let fields = attribute.value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
                guard fields.count >= 2, isToken(fields[0]), let direction = JingleRID.Direction(rawValue: String(fields[1])),
                      description.rids.count < limits.maximumSources else {
                    throw JingleError(.malformedSDP, "a=rid:\(attribute.value.prefix(40)) is not 'ID send|recv [restrictions]' or over the limit")
                }
                let restrictions = fields.count == 3 ? String(fields[2]) : ""
                guard restrictions.isEmpty || isToken(restrictions) else { throw JingleError(.malformedSDP, "a=rid restrictions '\(restrictions.prefix(40))'") }
                description.rids.append(JingleRID(id: String(fields[0]), direction: direction, restrictions: restrictions))
            case "simulcast":
                let fields = attribute.value.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count == 2 || fields.count == 4 else { throw JingleError(.malformedSDP, "a=simulcast:\(attribute.value.prefix(40))") }
                var simulcast = JingleSimulcast()
                for pair in stride(from: 0, to: fields.count, by: 2) {
                    guard isToken(fields[pair + 1]) else { throw JingleError(.malformedSDP, "a=simulcast:\(attribute.value.prefix(40))") }
                    switch fields[pair] {
                    case "send": simulcast.send = String(fields[pair + 1])
                    case "recv": simulcast.receive = String(fields[pair + 1])
                    default: throw JingleError(.malformedSDP, "a=simulcast direction '\(fields[pair].prefix(20))'")
                    }
                }
                description.simulcast = simulcast
            case let key where !mappedAttributes.contains(key):
                guard description.otherAttributes.count < limits.maximumParametersPerPayloadType else {
                    throw JingleError(.limitExceeded, "over \(limits.maximumParametersPerPayloadType) other attributes in m-line \(index)")
                }
                let line = attribute.value.isEmpty ? key : key + ":" + attribute.value
                description.otherAttributes.append(try sdpLine(line, "a=\(key.prefix(20))"))
            default:
                break
            }
        }
        return description
    }

    private static func headerExtension(_ value: String, writtenBy role: JingleRole) throws(JingleError) -> JingleHeaderExtension {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, isToken(fields[1]) else { throw JingleError(.malformedSDP, "a=extmap:\(value.prefix(40)) is not 'ID URI'") }
        let idAndDirection = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = decimal(idAndDirection[0], as: UInt8.self), id >= 1 else {
            throw JingleError(.malformedSDP, "a=extmap:\(value.prefix(40)) has no id in 1...255")
        }
        var senders = JingleSenders.both
        if idAndDirection.count == 2 {
            switch idAndDirection[1] {
            case "sendrecv": senders = .both
            case "sendonly": senders = JingleSenders(role)
            case "recvonly": senders = JingleSenders(role.other)
            case "inactive": senders = .none
            default: throw JingleError(.malformedSDP, "a=extmap direction '\(idAndDirection[1].prefix(20))'")
            }
        }
        return JingleHeaderExtension(id: id, uri: String(fields[1]), senders: senders)
    }

    /// `a=ssrc:SSRC name[:value]`: a parameter of that source (added at its first line).
    private static func addSource(_ value: String, to description: inout JingleRTPDescription, limits: JingleLimits) throws(JingleError) {
        let fields = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let ssrc = fields.first.flatMap({ decimal($0, as: UInt32.self) }) else {
            throw JingleError(.malformedSDP, "a=ssrc:\(value.prefix(40)) has no SSRC")
        }
        var position = description.sources.firstIndex { $0.ssrc == ssrc }
        if position == nil {
            guard description.sources.count < limits.maximumSources else {
                throw JingleError(.limitExceeded, "over \(limits.maximumSources) SSRCs in one m-line")
            }
            description.sources.append(JingleSource(ssrc: ssrc))
            position = description.sources.count - 1
        }
        guard fields.count == 2, let position else { return }
        let attribute = fields[1]
        let name: Substring, parameterValue: Substring
        if let colon = attribute.firstIndex(of: ":") {
            name = attribute[..<colon]
            parameterValue = attribute[attribute.index(after: colon)...]
        } else {
            name = attribute
            parameterValue = ""
        }
        guard isToken(name), description.sources[position].parameters.count < limits.maximumParametersPerPayloadType else {
            throw JingleError(.malformedSDP, "a=ssrc:\(value.prefix(40)) has a bad attribute or too many")
        }
        description.sources[position].parameters.append(JingleParameter(name: String(name), value: try sdpLine(String(parameterValue), "a=ssrc value")))
    }

    /// `value` when it fits on one SDP line (as the XML reader requires of free text).
    static func sdpLine(_ value: String, _ what: String) throws(JingleError) -> String {
        guard isLine(value) else { throw JingleError(.malformedSDP, "\(what) '\(value.prefix(40))' is over 4 KiB or holds a control character") }
        return value
    }
}
