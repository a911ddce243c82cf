import XMPP

extension JingleRTPDescription {
    /// Reads `<description xmlns='urn:xmpp:jingle:apps:rtp:1'/>` with its payload types
    /// (XEP-0167), feedback (XEP-0293), header extensions (XEP-0294), sources (XEP-0339) and the
    /// CallScope elements for what no XEP carries.
    package init(element: XMPPElement, limits: JingleLimits) throws(JingleError) {
        media = try element.requiredToken("media")
        var payloadTypes: [JinglePayloadType] = []
        for payloadType in try element.boundedChildren("payload-type", namespace: JingleNamespace.rtp,
                                                       limit: limits.maximumPayloadTypes, what: "payload types") {
            payloadTypes.append(try JinglePayloadType(element: payloadType, limits: limits))
        }
        self.payloadTypes = payloadTypes
        feedback = try Self.feedback(in: element, limits: limits)
        var headerExtensions: [JingleHeaderExtension] = []
        for headerExtension in try element.boundedChildren("rtp-hdrext", namespace: JingleNamespace.headerExtensions,
                                                           limit: limits.maximumHeaderExtensions, what: "header extensions") {
            let id: UInt8 = try headerExtension.requiredNumber("id")
            guard id >= 1 else { throw JingleError(.malformedJingle, "<rtp-hdrext id='0'> (ids start at 1)") }
            let sendersName = headerExtension[attribute: "senders"] ?? "both"
            guard let senders = JingleSenders(rawValue: sendersName) else {
                throw JingleError(.malformedJingle, "<rtp-hdrext senders='\(sendersName.prefix(20))'> is not both, initiator, responder or none")
            }
            headerExtensions.append(JingleHeaderExtension(id: id, uri: try headerExtension.requiredToken("uri"), senders: senders))
        }
        self.headerExtensions = headerExtensions
        allowsMixedHeaderExtensions = element.child("extmap-allow-mixed", namespace: JingleNamespace.headerExtensions) != nil
        rtcpMux = element.child("rtcp-mux", namespace: JingleNamespace.rtp) != nil
        reducedSizeRTCP = element.child("rtcp-rsize", namespace: JingleNamespace.callScopeSDP) != nil
        var sources: [JingleSource] = []
        for source in try element.boundedChildren("source", namespace: JingleNamespace.sources,
                                                  limit: limits.maximumSources, what: "sources") {
            var parameters: [JingleParameter] = []
            for parameter in try source.boundedChildren("parameter", namespace: JingleNamespace.sources,
                                                        limit: limits.maximumParametersPerPayloadType, what: "source parameters") {
                parameters.append(JingleParameter(name: try parameter.requiredToken("name"),
                                                  value: try parameter.optionalLine("value") ?? ""))
            }
            sources.append(JingleSource(ssrc: try source.requiredNumber("ssrc"), parameters: parameters))
        }
        self.sources = sources
        var sourceGroups: [JingleSourceGroup] = []
        for group in try element.boundedChildren("ssrc-group", namespace: JingleNamespace.sources,
                                                 limit: limits.maximumSources, what: "source groups") {
            var ssrcs: [UInt32] = []
            for member in try group.boundedChildren("source", namespace: JingleNamespace.sources,
                                                    limit: limits.maximumSources, what: "group members") {
                ssrcs.append(try member.requiredNumber("ssrc"))
            }
            sourceGroups.append(JingleSourceGroup(semantics: try group.requiredToken("semantics"), ssrcs: ssrcs))
        }
        self.sourceGroups = sourceGroups
        streamID = try element.child("msid", namespace: JingleNamespace.callScopeSDP)?.optionalLine("value")
        var rids: [JingleRID] = []
        for rid in try element.boundedChildren("rid", namespace: JingleNamespace.callScopeSDP, limit: limits.maximumSources, what: "RIDs") {
            let directionName = try rid.requiredToken("direction")
            guard let direction = JingleRID.Direction(rawValue: directionName) else {
                throw JingleError(.malformedJingle, "<rid direction='\(directionName.prefix(20))'> is neither send nor recv")
            }
            rids.append(JingleRID(id: try rid.requiredToken("id"), direction: direction,
                                  restrictions: try rid.optionalToken("restrictions") ?? ""))
        }
        self.rids = rids
        simulcast = try element.child("simulcast", namespace: JingleNamespace.callScopeSDP).map { (simulcast) throws(JingleError) in
            JingleSimulcast(send: try simulcast.optionalToken("send"), receive: try simulcast.optionalToken("recv"))
        }
        var otherAttributes: [String] = []
        for attribute in try element.boundedChildren("attribute", namespace: JingleNamespace.callScopeSDP,
                                                     limit: limits.maximumParametersPerPayloadType, what: "other attributes") {
            guard let value = try attribute.optionalLine("value"), !value.isEmpty else {
                throw JingleError(.malformedJingle, "<attribute> has no value")
            }
            otherAttributes.append(value)
        }
        self.otherAttributes = otherAttributes
    }

    /// The `<rtcp-fb/>` children of `element` (a description or a payload type).
    static func feedback(in element: XMPPElement, limits: JingleLimits) throws(JingleError) -> [JingleRTCPFeedback] {
        var feedback: [JingleRTCPFeedback] = []
        for entry in try element.boundedChildren("rtcp-fb", namespace: JingleNamespace.rtcpFeedback,
                                                 limit: limits.maximumParametersPerPayloadType, what: "feedback entries") {
            feedback.append(JingleRTCPFeedback(type: try entry.requiredToken("type"), subtype: try entry.optionalToken("subtype")))
        }
        return feedback
    }

    /// The `<description/>` element.
    package var element: XMPPElement {
        var description = XMPPElement("description", namespace: JingleNamespace.rtp, attributes: ["media": media])
        description.children = payloadTypes.map(\.element) + feedback.map(\.element)
        for headerExtension in headerExtensions {
            var element = XMPPElement("rtp-hdrext", namespace: JingleNamespace.headerExtensions,
                                      attributes: ["id": String(headerExtension.id), "uri": headerExtension.uri])
            if headerExtension.senders != .both { element[attribute: "senders"] = headerExtension.senders.rawValue }
            description.children.append(element)
        }
        if allowsMixedHeaderExtensions { description.children.append(XMPPElement("extmap-allow-mixed", namespace: JingleNamespace.headerExtensions)) }
        if rtcpMux { description.children.append(XMPPElement("rtcp-mux", namespace: JingleNamespace.rtp)) }
        for source in sources {
            description.children.append(XMPPElement("source", namespace: JingleNamespace.sources, attributes: ["ssrc": String(source.ssrc)],
                                                    children: source.parameters.map {
                                                        XMPPElement("parameter", namespace: JingleNamespace.sources,
                                                                    attributes: ["name": $0.name, "value": $0.value])
                                                    }))
        }
        for group in sourceGroups {
            description.children.append(XMPPElement("ssrc-group", namespace: JingleNamespace.sources, attributes: ["semantics": group.semantics],
                                                    children: group.ssrcs.map {
                                                        XMPPElement("source", namespace: JingleNamespace.sources, attributes: ["ssrc": String($0)])
                                                    }))
        }
        if reducedSizeRTCP { description.children.append(XMPPElement("rtcp-rsize", namespace: JingleNamespace.callScopeSDP)) }
        if let streamID { description.children.append(XMPPElement("msid", namespace: JingleNamespace.callScopeSDP, attributes: ["value": streamID])) }
        for rid in rids {
            var element = XMPPElement("rid", namespace: JingleNamespace.callScopeSDP, attributes: ["id": rid.id, "direction": rid.direction.rawValue])
            if !rid.restrictions.isEmpty { element[attribute: "restrictions"] = rid.restrictions }
            description.children.append(element)
        }
        if let simulcast {
            var element = XMPPElement("simulcast", namespace: JingleNamespace.callScopeSDP)
            element[attribute: "send"] = simulcast.send
            element[attribute: "recv"] = simulcast.receive
            description.children.append(element)
        }
        for attribute in otherAttributes {
            description.children.append(XMPPElement("attribute", namespace: JingleNamespace.callScopeSDP, attributes: ["value": attribute]))
        }
        return description
    }
}

extension JinglePayloadType {
    /// Reads `<payload-type/>` with its `<parameter/>` and `<rtcp-fb/>` children.
    package init(element: XMPPElement, limits: JingleLimits) throws(JingleError) {
        id = try element.requiredNumber("id")
        guard id <= 127 else { throw JingleError(.malformedJingle, "<payload-type id='\(id)'> is over 127") }
        name = try element.optionalToken("name") ?? ""
        clockRate = try element.optionalNumber("clockrate")
        channels = try element.optionalNumber("channels")
        var parameters: [JingleParameter] = []
        for parameter in try element.boundedChildren("parameter", namespace: JingleNamespace.rtp,
                                                     limit: limits.maximumParametersPerPayloadType, what: "parameters") {
            let name = parameter[attribute: "name"] ?? ""
            if !name.isEmpty { _ = try XMPPElement.token(name, "<parameter name>") }
            parameters.append(JingleParameter(name: name, value: try parameter.optionalToken("value") ?? ""))
        }
        self.parameters = parameters
        feedback = try JingleRTPDescription.feedback(in: element, limits: limits)
    }

    /// The `<payload-type/>` element.
    package var element: XMPPElement {
        var payloadType = XMPPElement("payload-type", namespace: JingleNamespace.rtp, attributes: ["id": String(id)])
        if !name.isEmpty { payloadType[attribute: "name"] = name }
        payloadType[attribute: "clockrate"] = clockRate.map { String($0) }
        payloadType[attribute: "channels"] = channels.map { String($0) }
        payloadType.children = parameters.map {
            XMPPElement("parameter", namespace: JingleNamespace.rtp, attributes: ["name": $0.name, "value": $0.value])
        } + feedback.map(\.element)
        return payloadType
    }
}

extension JingleRTCPFeedback {
    /// The `<rtcp-fb/>` element.
    package var element: XMPPElement {
        var element = XMPPElement("rtcp-fb", namespace: JingleNamespace.rtcpFeedback, attributes: ["type": type])
        element[attribute: "subtype"] = subtype
        return element
    }
}
