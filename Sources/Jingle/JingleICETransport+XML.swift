import XMPP

extension JingleICETransport {
    /// Reads `<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1'/>` with its candidates,
    /// XEP-0320 fingerprints and XEP-0343 `<sctpmap/>`.
    package init(element: XMPPElement, limits: JingleLimits) throws(JingleError) {
        usernameFragment = try element.optionalToken("ufrag")
        password = try element.optionalToken("pwd")
        var candidates: [JingleICECandidate] = []
        for candidate in try element.boundedChildren("candidate", namespace: JingleNamespace.iceUDP,
                                                     limit: limits.maximumCandidates, what: "candidates") {
            candidates.append(try JingleICECandidate(element: candidate))
        }
        self.candidates = candidates
        var fingerprints: [JingleFingerprint] = []
        for fingerprint in try element.boundedChildren("fingerprint", namespace: JingleNamespace.dtls, limit: 8, what: "fingerprints") {
            fingerprints.append(try JingleFingerprint(element: fingerprint))
        }
        self.fingerprints = fingerprints
        if let sctpmap = element.child("sctpmap", namespace: JingleNamespace.dtlsSCTP) {
            let protocolName = sctpmap[attribute: "protocol"] ?? "webrtc-datachannel"
            guard protocolName == "webrtc-datachannel" else {
                throw JingleError(.unsupported, "<sctpmap protocol='\(protocolName.prefix(40))'> is not webrtc-datachannel")
            }
            sctp = JingleSCTP(port: try sctpmap.requiredNumber("number"),
                              maximumMessageSize: try sctpmap.optionalNumber("max-message-size"),
                              streams: try sctpmap.optionalNumber("streams"))
        } else {
            sctp = nil
        }
    }

    /// The `<transport/>` element.
    package var element: XMPPElement {
        var transport = XMPPElement("transport", namespace: JingleNamespace.iceUDP)
        transport[attribute: "ufrag"] = usernameFragment
        transport[attribute: "pwd"] = password
        for fingerprint in fingerprints { transport.children.append(fingerprint.element) }
        if let sctp {
            var sctpmap = XMPPElement("sctpmap", namespace: JingleNamespace.dtlsSCTP,
                                      attributes: ["number": String(sctp.port), "protocol": "webrtc-datachannel"])
            sctpmap[attribute: "streams"] = sctp.streams.map { String($0) }
            // Not in XEP-0343 0.3.1 (which predates RFC 8841's a=max-message-size): an extra
            // attribute, ignored by readers that do not know it.
            sctpmap[attribute: "max-message-size"] = sctp.maximumMessageSize.map { String($0) }
            transport.children.append(sctpmap)
        }
        for candidate in candidates { transport.children.append(candidate.element) }
        return transport
    }
}

extension JingleICECandidate {
    /// Reads `<candidate/>` (XEP-0176 §5.3); `tcptype` and `network-cost` are the attributes
    /// deployed stacks add for what RFC 8839 grew since.
    package init(element: XMPPElement) throws(JingleError) {
        foundation = try element.requiredToken("foundation")
        component = try element.requiredNumber("component")
        guard component >= 1 else { throw JingleError(.malformedJingle, "<candidate component='0'> (components start at 1)") }
        transportProtocol = try element.requiredToken("protocol").lowercased()
        guard transportProtocol == "udp" || transportProtocol == "tcp" else {
            throw JingleError(.malformedJingle, "<candidate protocol='\(transportProtocol.prefix(20))'> is neither udp nor tcp")
        }
        priority = try element.requiredNumber("priority")
        address = try element.requiredToken("ip")
        port = try element.requiredNumber("port")
        let typeName = try element.requiredToken("type")
        guard let type = CandidateType(rawValue: typeName) else {
            throw JingleError(.malformedJingle, "<candidate type='\(typeName.prefix(20))'> is not host, srflx, prflx or relay")
        }
        self.type = type
        relatedAddress = try element.optionalToken("rel-addr")
        relatedPort = try element.optionalNumber("rel-port")
        tcpType = try element.optionalToken("tcptype")
        generation = try element.optionalNumber("generation") ?? 0
        networkID = try element.optionalNumber("network")
        networkCost = try element.optionalNumber("network-cost")
    }

    /// The `<candidate/>` element.
    package var element: XMPPElement {
        var candidate = XMPPElement("candidate", namespace: JingleNamespace.iceUDP, attributes: [
            "component": String(component), "foundation": foundation, "generation": String(generation), "id": id,
            "ip": address, "port": String(port), "priority": String(priority), "protocol": transportProtocol,
            "type": type.rawValue,
        ])
        candidate[attribute: "rel-addr"] = relatedAddress
        candidate[attribute: "rel-port"] = relatedPort.map { String($0) }
        candidate[attribute: "tcptype"] = tcpType
        candidate[attribute: "network"] = networkID.map { String($0) }
        candidate[attribute: "network-cost"] = networkCost.map { String($0) }
        return candidate
    }
}

extension JingleFingerprint {
    /// Reads `<fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash setup>HEX</fingerprint>`.
    package init(element: XMPPElement) throws(JingleError) {
        hashFunction = try element.requiredToken("hash").lowercased()
        let setupName = try element.requiredToken("setup")
        guard let setup = Setup(rawValue: setupName) else {
            throw JingleError(.malformedJingle, "<fingerprint setup='\(setupName.prefix(20))'> is not actpass, active, passive or holdconn")
        }
        self.setup = setup
        // XEP-0320's own example wraps the value in whitespace.
        let value = trimmed(element.text)
        guard value.utf8.count <= 256, !value.isEmpty,
              value.utf8.allSatisfy({ $0 == UInt8(ascii: ":") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else {
            throw JingleError(.malformedJingle, "fingerprint '\(value.prefix(40))' is not hex bytes separated by colons")
        }
        self.value = value.uppercased()
    }

    /// The `<fingerprint/>` element.
    package var element: XMPPElement {
        XMPPElement("fingerprint", namespace: JingleNamespace.dtls, attributes: ["hash": hashFunction, "setup": setup.rawValue], text: value)
    }
}
