extension JingleSession {
    /// Maps an SDP offer or answer, as Chromium/libwebrtc write it, to Jingle: one content per
    /// m-line, named by its `a=mid`; `a=group` to groups (XEP-0338).
    ///
    /// `writtenBy` is the party whose SDP this is (the initiator's offer, the responder's
    /// answer): SDP directions are that party's view, Jingle `senders` names parties.
    ///
    /// Kept: ICE credentials and candidates, DTLS fingerprint and setup (also from the session
    /// level, where Firefox writes them), `a=rtcp-mux`, `a=rtcp-rsize`, `a=extmap-allow-mixed`,
    /// payload types with `a=rtpmap` / `a=fmtp` / `a=rtcp-fb` (also `*`), `a=extmap` with its
    /// direction, `a=ssrc` and `a=ssrc-group`, `a=msid`, `a=rid`, `a=simulcast`, `a=sctp-port`
    /// (or the older `a=sctpmap`) and `a=max-message-size`, other media attributes of an RTP
    /// m-line verbatim. Regenerated, not kept: `v=`, `o=`, `s=`, `t=`, `c=`, `b=`, the m-line
    /// port, `a=rtcp`, `a=ice-options`, `a=msid-semantic`, `a=end-of-candidates`, extmap
    /// attributes after the URI (docs/peer-to-peer.md, "Jingle", says why).
    public init(sdp: String, writtenBy role: JingleRole, limits: JingleLimits = JingleLimits()) throws(JingleError) {
        let document = try SDPDocument(sdp, limits: limits)
        guard !document.media.isEmpty else { throw JingleError(.malformedSDP, "the SDP has no m-line") }
        let session = SDPDocument.MediaSection(media: "", port: 0, transportProtocol: "", formats: [], attributes: document.sessionAttributes)
        var groups: [JingleGroup] = []
        for group in session.values("group") {
            let fields = group.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let semantics = fields.first, isToken(semantics), fields.count <= limits.maximumContents + 1 else {
                throw JingleError(.malformedSDP, "a=group:\(group.prefix(40)) has no semantics or too many members")
            }
            groups.append(JingleGroup(semantics: semantics, contentNames: Array(fields.dropFirst())))
        }
        let allowsMixed = session.has("extmap-allow-mixed")
        var contents: [JingleContent] = []
        var names = Set<String>()
        for (index, section) in document.media.enumerated() {
            let content = try Self.content(section, index: index, session: session, allowsMixed: allowsMixed, writtenBy: role, limits: limits)
            guard names.insert(content.name).inserted else { throw JingleError(.malformedSDP, "two m-lines have a=mid:\(content.name)") }
            contents.append(content)
        }
        self.init(contents: contents, groups: groups)
    }

    private static func content(_ section: SDPDocument.MediaSection, index: Int, session: SDPDocument.MediaSection, allowsMixed: Bool,
                                writtenBy role: JingleRole, limits: JingleLimits) throws(JingleError) -> JingleContent {
        guard let mid = section.value("mid") else { throw JingleError(.malformedSDP, "m-line \(index) has no a=mid") }
        let name = try sdpToken(mid, "a=mid")
        let senders: JingleSenders
        switch (section.has("sendrecv"), section.has("sendonly"), section.has("recvonly"), section.has("inactive")) {
        case (_, true, _, _): senders = JingleSenders(role)
        case (_, _, true, _): senders = JingleSenders(role.other)
        case (_, _, _, true): senders = .none
        default: senders = .both
        }
        let application: JingleApplication
        var sctp: JingleSCTP?
        switch section.media {
        case "audio", "video":
            guard section.transportProtocol.contains("RTP") else {
                throw JingleError(.unsupported, "m-line \(index) (\(section.media)) uses \(section.transportProtocol.prefix(40)), not RTP")
            }
            application = .rtp(try rtpDescription(section, index: index, allowsMixed: allowsMixed, writtenBy: role, limits: limits))
        case "application" where section.transportProtocol.hasSuffix("SCTP"):
            application = .dataChannel
            sctp = try sctpParameters(section, index: index)
        default:
            throw JingleError(.unsupported, "m-line \(index) is \(section.media.prefix(20)) over \(section.transportProtocol.prefix(40))")
        }
        var transport = try iceTransport(section, session: session, index: index, limits: limits)
        transport.sctp = sctp
        return JingleContent(creator: .initiator, name: name, senders: senders, application: application, transport: transport)
    }

    private static func sctpParameters(_ section: SDPDocument.MediaSection, index: Int) throws(JingleError) -> JingleSCTP {
        var sctp = JingleSCTP()
        if let port = section.value("sctp-port") {
            guard let number = decimal(port, as: UInt16.self) else { throw JingleError(.malformedSDP, "a=sctp-port:\(port.prefix(20))") }
            sctp.port = number
        } else if let sctpmap = section.value("sctpmap") {
            // The pre-RFC 8841 form: `a=sctpmap:5000 webrtc-datachannel 1024`.
            let fields = sctpmap.split(separator: " ")
            guard let first = fields.first, let number = decimal(first, as: UInt16.self) else {
                throw JingleError(.malformedSDP, "a=sctpmap:\(sctpmap.prefix(40))")
            }
            sctp.port = number
            if fields.count >= 3 { sctp.streams = decimal(fields[2], as: UInt16.self) }
        }
        if let size = section.value("max-message-size") {
            guard let number = decimal(size, as: UInt64.self) else { throw JingleError(.malformedSDP, "a=max-message-size:\(size.prefix(20))") }
            sctp.maximumMessageSize = number
        }
        return sctp
    }

    private static func iceTransport(_ section: SDPDocument.MediaSection, session: SDPDocument.MediaSection, index: Int,
                                     limits: JingleLimits) throws(JingleError) -> JingleICETransport {
        var transport = JingleICETransport()
        if let ufrag = section.value("ice-ufrag") ?? session.value("ice-ufrag") { transport.usernameFragment = try sdpToken(ufrag, "a=ice-ufrag") }
        if let pwd = section.value("ice-pwd") ?? session.value("ice-pwd") { transport.password = try sdpToken(pwd, "a=ice-pwd") }
        let candidates = section.values("candidate")
        guard candidates.count <= limits.maximumCandidates else {
            throw JingleError(.limitExceeded, "\(candidates.count) candidates in m-line \(index), over the limit of \(limits.maximumCandidates)")
        }
        for candidate in candidates { transport.candidates.append(try JingleICECandidate(sdpAttribute: "candidate:" + candidate)) }
        let setupName = section.value("setup") ?? session.value("setup") ?? "actpass"
        guard let setup = JingleFingerprint.Setup(rawValue: setupName) else {
            throw JingleError(.malformedSDP, "a=setup:\(setupName.prefix(20)) is not actpass, active, passive or holdconn")
        }
        let fingerprints = section.values("fingerprint").isEmpty ? session.values("fingerprint") : section.values("fingerprint")
        guard fingerprints.count <= 8 else { throw JingleError(.limitExceeded, "\(fingerprints.count) fingerprints in m-line \(index)") }
        for fingerprint in fingerprints {
            let fields = fingerprint.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, isToken(fields[0]),
                  fields[1].utf8.allSatisfy({ $0 == UInt8(ascii: ":") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else {
                throw JingleError(.malformedSDP, "a=fingerprint:\(fingerprint.prefix(40)) is not 'HASH HEX:HEX:...'")
            }
            transport.fingerprints.append(JingleFingerprint(hashFunction: fields[0].lowercased(), setup: setup, value: fields[1].uppercased()))
        }
        return transport
    }
}

extension JingleSenders {
    /// The value for "only `role` sends".
    init(_ role: JingleRole) { self = role == .initiator ? .initiator : .responder }
}
