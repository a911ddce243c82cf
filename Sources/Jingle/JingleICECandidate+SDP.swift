extension JingleICECandidate {
    /// Reads an SDP candidate attribute (RFC 8839 §5.1), as in `RTCIceCandidate.candidate`:
    /// `candidate:FOUNDATION COMPONENT PROTOCOL PRIORITY ADDRESS PORT typ TYPE [raddr A rport P]
    /// [tcptype T] [generation G] [ufrag U] [network-id N] [network-cost C]`, with or without
    /// `a=`. Unknown extensions are skipped; a `ufrag` extension is returned beside.
    public init(sdpAttribute: String) throws(JingleError) {
        self = try Self.parse(sdpAttribute).candidate
    }

    /// The candidate and the `ufrag` extension, when present.
    static func parse(_ text: String) throws(JingleError) -> (candidate: JingleICECandidate, usernameFragment: String?) {
        var body = Substring(text)
        if body.hasPrefix("a=") { body = body.dropFirst(2) }
        guard body.hasPrefix("candidate:") else {
            throw JingleError(.malformedSDP, "'\(text.prefix(40))' does not start with candidate:")
        }
        body = body.dropFirst("candidate:".count)
        guard body.utf8.count <= 1024 else { throw JingleError(.malformedSDP, "a candidate of \(body.utf8.count) bytes") }
        let fields = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 8, fields[6] == "typ" else {
            throw JingleError(.malformedSDP, "candidate '\(text.prefix(60))' lacks 'FOUNDATION COMPONENT PROTOCOL PRIORITY ADDRESS PORT typ TYPE'")
        }
        func number<T: FixedWidthInteger>(_ field: String, _ what: String, as type: T.Type = T.self) throws(JingleError) -> T {
            guard let value = decimal(field, as: type) else {
                throw JingleError(.malformedSDP, "candidate \(what) '\(field.prefix(20))' is not a number in 0...\(T.max)")
            }
            return value
        }
        let component: UInt8 = try number(fields[1], "component")
        guard component >= 1 else { throw JingleError(.malformedSDP, "candidate component 0") }
        let transportProtocol = fields[2].lowercased()
        guard transportProtocol == "udp" || transportProtocol == "tcp" else {
            throw JingleError(.malformedSDP, "candidate protocol '\(fields[2].prefix(20))' is neither udp nor tcp")
        }
        guard let type = CandidateType(rawValue: fields[7]) else {
            throw JingleError(.malformedSDP, "candidate type '\(fields[7].prefix(20))' is not host, srflx, prflx or relay")
        }
        var candidate = JingleICECandidate(foundation: try sdpToken(fields[0], "candidate foundation"), component: component,
                                           transportProtocol: transportProtocol, priority: try number(fields[3], "priority"),
                                           address: try sdpToken(fields[4], "candidate address"),
                                           port: try number(fields[5], "port"), type: type)
        var usernameFragment: String?
        var index = 8
        while index < fields.count {
            guard index + 1 < fields.count else {
                throw JingleError(.malformedSDP, "candidate extension '\(fields[index].prefix(20))' has no value")
            }
            let value = fields[index + 1]
            switch fields[index] {
            case "raddr": candidate.relatedAddress = try sdpToken(value, "candidate raddr")
            case "rport": candidate.relatedPort = try number(value, "rport")
            case "tcptype": candidate.tcpType = try sdpToken(value, "candidate tcptype")
            case "generation": candidate.generation = try number(value, "generation")
            case "network-id": candidate.networkID = try number(value, "network-id")
            case "network-cost": candidate.networkCost = try number(value, "network-cost")
            case "ufrag": usernameFragment = try sdpToken(value, "candidate ufrag")
            default: break
            }
            index += 2
        }
        return (candidate, usernameFragment)
    }

    /// The SDP candidate attribute without `a=` (what `RTCIceCandidate.candidate` holds), with
    /// `ufrag` when given, in the order Chromium writes the extensions.
    public func sdpAttribute(usernameFragment: String? = nil) -> String {
        var text = "candidate:\(foundation) \(component) \(transportProtocol) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        if let tcpType { text += " tcptype \(tcpType)" }
        text += " generation \(generation)"
        if let usernameFragment { text += " ufrag \(usernameFragment)" }
        if let networkID { text += " network-id \(networkID)" }
        if let networkCost { text += " network-cost \(networkCost)" }
        return text
    }
}

/// `value` when it is a token (see `isToken`), else `malformedSDP`.
func sdpToken(_ value: String, _ what: String) throws(JingleError) -> String {
    guard isToken(value) else { throw JingleError(.malformedSDP, "\(what) '\(value.prefix(40))' is empty, too long or holds whitespace") }
    return value
}
