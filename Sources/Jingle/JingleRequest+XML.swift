import XMPP

extension JingleRequest {
    /// Reads a `<jingle xmlns='urn:xmpp:jingle:1'/>` element (the child of an IQ set).
    ///
    /// Hostile input is a ``JingleError``: a missing or malformed `action`, `sid`, content
    /// `creator` / `name` / `senders`, bad numbers, more of anything than `limits` allow.
    /// Unknown elements and attributes are ignored (XEP-0166 §8); a content whose application
    /// is not RTP or the data channel reads as ``JingleApplication/other(namespace:)``; a
    /// transport other than ICE-UDP is `unsupported`.
    package init(element: XMPPElement, limits: JingleLimits = JingleLimits()) throws(JingleError) {
        guard element.isElement("jingle", namespace: JingleNamespace.jingle) else {
            throw JingleError(.malformedJingle, "<\(element.name) xmlns='\(element.namespace)'> is not a Jingle element")
        }
        let actionName = try element.requiredToken("action")
        guard JingleAction.defined.contains(actionName) else {
            throw JingleError(.malformedJingle, "unknown Jingle action '\(actionName.prefix(40))'")
        }
        action = JingleAction(rawValue: actionName)
        sessionID = try element.requiredToken("sid")
        initiator = try element.optionalToken("initiator")
        responder = try element.optionalToken("responder")
        let contentElements = try element.boundedChildren("content", namespace: JingleNamespace.jingle,
                                                          limit: limits.maximumContents, what: "contents")
        var contents: [JingleContent] = []
        for content in contentElements { contents.append(try JingleContent(element: content, limits: limits)) }
        var names = Set<String>()
        for content in contents where !names.insert(content.name).inserted {
            throw JingleError(.malformedJingle, "two contents are called '\(content.name)'")
        }
        let groupElements = try element.boundedChildren("group", namespace: JingleNamespace.grouping,
                                                        limit: limits.maximumContents, what: "groups")
        var groups: [JingleGroup] = []
        for group in groupElements {
            let semantics = try group.requiredToken("semantics")
            let members = try group.boundedChildren("content", namespace: JingleNamespace.grouping,
                                                    limit: limits.maximumContents, what: "group members")
            var contentNames: [String] = []
            for member in members { contentNames.append(try member.requiredToken("name")) }
            groups.append(JingleGroup(semantics: semantics, contentNames: contentNames))
        }
        session = JingleSession(contents: contents, groups: groups)
        reason = try element.child("reason", namespace: JingleNamespace.jingle).map { (reason) throws(JingleError) in
            try JingleReason(element: reason)
        }
    }

    /// The `<jingle/>` element, for an IQ set.
    package var element: XMPPElement {
        var jingle = XMPPElement("jingle", namespace: JingleNamespace.jingle,
                                 attributes: ["action": action.rawValue, "sid": sessionID])
        jingle[attribute: "initiator"] = initiator
        jingle[attribute: "responder"] = responder
        jingle.children = session.contents.map(\.element)
        for group in session.groups {
            jingle.children.append(XMPPElement("group", namespace: JingleNamespace.grouping, attributes: ["semantics": group.semantics],
                                               children: group.contentNames.map {
                                                   XMPPElement("content", namespace: JingleNamespace.grouping, attributes: ["name": $0])
                                               }))
        }
        if let reason { jingle.children.append(reason.element) }
        return jingle
    }
}

extension JingleReason {
    /// Reads `<reason/>`: the first child in the Jingle namespace other than `<text/>` is the
    /// condition (an unknown one is kept by name, as XEP-0166 allows application-specific ones
    /// beside it).
    package init(element: XMPPElement) throws(JingleError) {
        guard let conditionElement = element.children.first(where: { $0.namespace == JingleNamespace.jingle && $0.name != "text" }) else {
            throw JingleError(.malformedJingle, "<reason> has no condition")
        }
        condition = Condition(rawValue: conditionElement.name)
        let text = element.child("text", namespace: JingleNamespace.jingle)?.text
        self.text = text.map { String($0.prefix(1024)) }
    }

    /// The `<reason/>` element.
    package var element: XMPPElement {
        var reason = XMPPElement("reason", namespace: JingleNamespace.jingle,
                                 children: [XMPPElement(condition.rawValue, namespace: JingleNamespace.jingle)])
        if let text { reason.children.append(XMPPElement("text", namespace: JingleNamespace.jingle, text: text)) }
        return reason
    }
}

extension JingleContent {
    /// Reads `<content/>`.
    package init(element: XMPPElement, limits: JingleLimits) throws(JingleError) {
        let creatorName = try element.requiredToken("creator")
        guard let creator = JingleRole(rawValue: creatorName) else {
            throw JingleError(.malformedJingle, "<content creator='\(creatorName.prefix(40))'> is neither initiator nor responder")
        }
        self.creator = creator
        name = try element.requiredToken("name")
        if let sendersName = element[attribute: "senders"] {
            guard let senders = JingleSenders(rawValue: sendersName) else {
                throw JingleError(.malformedJingle, "<content senders='\(sendersName.prefix(40))'> is not both, initiator, responder or none")
            }
            self.senders = senders
        } else {
            senders = .both
        }
        if let description = element.child("description") {
            switch description.namespace {
            case JingleNamespace.rtp:
                application = .rtp(try JingleRTPDescription(element: description, limits: limits))
            case JingleNamespace.webRTCDataChannel:
                application = .dataChannel
            default:
                application = .other(namespace: String(description.namespace.prefix(256)))
            }
        } else {
            application = nil
        }
        if let transport = element.child("transport") {
            guard transport.namespace == JingleNamespace.iceUDP else {
                throw JingleError(.unsupported, "content '\(name)' uses the transport '\(transport.namespace.prefix(80))', not ICE-UDP")
            }
            self.transport = try JingleICETransport(element: transport, limits: limits)
        } else {
            transport = nil
        }
    }

    /// The `<content/>` element.
    package var element: XMPPElement {
        var content = XMPPElement("content", namespace: JingleNamespace.jingle, attributes: ["creator": creator.rawValue, "name": name])
        if senders != .both { content[attribute: "senders"] = senders.rawValue }
        switch application {
        case .rtp(let description): content.children.append(description.element)
        case .dataChannel: content.children.append(XMPPElement("description", namespace: JingleNamespace.webRTCDataChannel))
        case .other(let namespace): content.children.append(XMPPElement("description", namespace: namespace))
        case nil: break
        }
        if let transport { content.children.append(transport.element) }
        return content
    }
}
