extension JingleSession {
    /// The SDP for this session as `role` wrote it (the initiator's offer, the responder's
    /// answer), for Chromium's `setRemoteDescription`.
    ///
    /// Every m-line gets port 9 and `c=IN IP4 0.0.0.0` (the candidates travel in
    /// `a=candidate` and by trickle), `a=ice-options:trickle` (candidates always trickle over
    /// Jingle), and for RTP `a=rtcp:9 IN IP4 0.0.0.0`. `sessionID` and `sessionVersion` fill the
    /// `o=` line: keep the id and raise the version on each renegotiation of one session.
    ///
    /// A content without an application, or with one this module does not know, is
    /// `unsupported`: its m-line cannot be written.
    public func sdp(writtenBy role: JingleRole, sessionID: UInt64 = 1, sessionVersion: UInt64 = 1) throws(JingleError) -> String {
        var lines = ["v=0", "o=- \(sessionID) \(sessionVersion) IN IP4 127.0.0.1", "s=-", "t=0 0"]
        for group in groups { lines.append("a=group:" + ([group.semantics] + group.contentNames).joined(separator: " ")) }
        let descriptions = contents.compactMap { content -> JingleRTPDescription? in
            if case .rtp(let description) = content.application { return description }
            return nil
        }
        let allowsMixed = !descriptions.isEmpty && descriptions.allSatisfy(\.allowsMixedHeaderExtensions)
        if allowsMixed { lines.append("a=extmap-allow-mixed") }
        lines.append("a=msid-semantic: WMS")
        for content in contents {
            switch content.application {
            case .rtp(let description):
                let formats = description.payloadTypes.map { String($0.id) }.joined(separator: " ")
                lines.append("m=\(description.media) 9 UDP/TLS/RTP/SAVPF \(formats)")
                lines.append("c=IN IP4 0.0.0.0")
                lines.append("a=rtcp:9 IN IP4 0.0.0.0")
                appendTransport(content, to: &lines)
                description.appendAttributes(senders: content.senders, writtenBy: role, sessionAllowsMixed: allowsMixed, to: &lines)
            case .dataChannel:
                lines.append("m=application 9 UDP/DTLS/SCTP webrtc-datachannel")
                lines.append("c=IN IP4 0.0.0.0")
                appendTransport(content, to: &lines)
                let sctp = content.transport?.sctp ?? JingleSCTP()
                lines.append("a=sctp-port:\(sctp.port)")
                if let size = sctp.maximumMessageSize { lines.append("a=max-message-size:\(size)") }
            case .other(let namespace):
                throw JingleError(.unsupported, "content '\(content.name)' has the application '\(namespace.prefix(80))', which has no SDP mapping")
            case nil:
                throw JingleError(.unsupported, "content '\(content.name)' has no application, so no m-line")
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// ICE, DTLS and the mid of one m-line.
    private func appendTransport(_ content: JingleContent, to lines: inout [String]) {
        let transport = content.transport ?? JingleICETransport()
        for candidate in transport.candidates { lines.append("a=" + candidate.sdpAttribute()) }
        if let ufrag = transport.usernameFragment { lines.append("a=ice-ufrag:\(ufrag)") }
        if let password = transport.password { lines.append("a=ice-pwd:\(password)") }
        lines.append("a=ice-options:trickle")
        for fingerprint in transport.fingerprints { lines.append("a=fingerprint:\(fingerprint.hashFunction) \(fingerprint.value)") }
        if let setup = transport.fingerprints.first?.setup { lines.append("a=setup:\(setup.rawValue)") }
        lines.append("a=mid:\(content.name)")
    }
}

extension JingleRTPDescription {
    /// The attributes of this description's m-line after the transport, in Chromium's order.
    func appendAttributes(senders: JingleSenders, writtenBy role: JingleRole, sessionAllowsMixed: Bool, to lines: inout [String]) {
        for headerExtension in headerExtensions {
            let direction = headerExtension.senders == .both ? "" : "/" + Self.direction(headerExtension.senders, writtenBy: role)
            lines.append("a=extmap:\(headerExtension.id)\(direction) \(headerExtension.uri)")
        }
        if allowsMixedHeaderExtensions && !sessionAllowsMixed { lines.append("a=extmap-allow-mixed") }
        lines.append("a=" + Self.direction(senders, writtenBy: role))
        if let streamID { lines.append("a=msid:\(streamID)") }
        if rtcpMux { lines.append("a=rtcp-mux") }
        if reducedSizeRTCP { lines.append("a=rtcp-rsize") }
        for attribute in otherAttributes { lines.append("a=" + attribute) }
        for payloadType in payloadTypes {
            if !payloadType.name.isEmpty {
                let rate = payloadType.clockRate.map { "/\($0)" } ?? ""
                let channels = payloadType.channels.map { "/\($0)" } ?? ""
                lines.append("a=rtpmap:\(payloadType.id) \(payloadType.name)\(rate)\(channels)")
            }
            for feedback in payloadType.feedback { lines.append("a=rtcp-fb:\(payloadType.id) \(feedback.sdpValue)") }
            if !payloadType.parameters.isEmpty {
                let parameters = payloadType.parameters.map { $0.name.isEmpty ? $0.value : "\($0.name)=\($0.value)" }
                lines.append("a=fmtp:\(payloadType.id) " + parameters.joined(separator: ";"))
            }
        }
        for feedback in feedback { lines.append("a=rtcp-fb:* \(feedback.sdpValue)") }
        for group in sourceGroups { lines.append("a=ssrc-group:" + ([group.semantics] + group.ssrcs.map { String($0) }).joined(separator: " ")) }
        for source in sources {
            if source.parameters.isEmpty { lines.append("a=ssrc:\(source.ssrc)") }
            for parameter in source.parameters {
                lines.append("a=ssrc:\(source.ssrc) \(parameter.name)" + (parameter.value.isEmpty ? "" : ":\(parameter.value)"))
            }
        }
        for rid in rids { lines.append("a=rid:\(rid.id) \(rid.direction.rawValue)" + (rid.restrictions.isEmpty ? "" : " \(rid.restrictions)")) }
        if let simulcast {
            var parts: [String] = []
            if let send = simulcast.send { parts.append("send \(send)") }
            if let receive = simulcast.receive { parts.append("recv \(receive)") }
            if !parts.isEmpty { lines.append("a=simulcast:" + parts.joined(separator: " ")) }
        }
    }

    /// The SDP direction of `senders` in the view of `role`.
    static func direction(_ senders: JingleSenders, writtenBy role: JingleRole) -> String {
        switch senders {
        case .both: "sendrecv"
        case .none: "inactive"
        case JingleSenders(role): "sendonly"
        default: "recvonly"
        }
    }
}

extension JingleRTCPFeedback {
    /// `type[ subtype]`.
    var sdpValue: String { subtype.map { "\(type) \($0)" } ?? type }
}
