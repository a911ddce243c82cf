/// One STUN/TURN server announced by the XMPP server (XEP-0215 external service discovery).
public struct ExternalService: Hashable, Sendable {
    /// `stun`, `turn`, `turns`, or another type as sent.
    public var type: String
    /// Host name or address.
    public var host: String
    /// Port, when given.
    public var port: UInt16?
    /// `udp` or `tcp`, when given.
    public var transport: String?
    /// Short-term credentials (for TURN), when given.
    public var username: String?
    /// The password paired with ``username``.
    public var password: String?
    /// When the credentials expire (XEP-0082 date-time as sent), when given.
    public var expires: String?

    /// Creates a service.
    public init(type: String, host: String, port: UInt16? = nil, transport: String? = nil,
                username: String? = nil, password: String? = nil, expires: String? = nil) {
        self.type = type
        self.host = host
        self.port = port
        self.transport = transport
        self.username = username
        self.password = password
        self.expires = expires
    }

    /// Reads the `<services xmlns='urn:xmpp:extdisco:2'>` payload of an `<iq type=result>`.
    /// Entries without a type or host, or with a port outside 1–65535, are skipped and counted in
    /// `skipped`; a missing `<services>` is a protocol violation.
    package static func parse(result: XMPPElement) throws(XMPPError) -> (services: [ExternalService], skipped: Int) {
        if let condition = result.stanzaErrorCondition { throw XMPPError(.stanzaError, "external services refused: \(condition)") }
        guard let services = result.child("services", namespace: XMPPNamespace.externalServices) else {
            throw XMPPError(.protocolViolation, "external services result without <services xmlns='\(XMPPNamespace.externalServices)'>")
        }
        var found: [ExternalService] = []
        var skipped = 0
        for entry in services.children("service", namespace: XMPPNamespace.externalServices) {
            guard let type = entry.attributes["type"], !type.isEmpty, let host = entry.attributes["host"], !host.isEmpty else {
                skipped += 1
                continue
            }
            var port: UInt16?
            if let text = entry.attributes["port"] {
                guard let value = UInt16(text), value > 0 else {
                    skipped += 1
                    continue
                }
                port = value
            }
            found.append(ExternalService(type: type, host: host, port: port, transport: entry.attributes["transport"],
                                         username: entry.attributes["username"], password: entry.attributes["password"],
                                         expires: entry.attributes["expires"]))
        }
        return (found, skipped)
    }

    /// The request: `<iq type=get><services xmlns='urn:xmpp:extdisco:2'/></iq>` to the server.
    package static func request(id: String, server: String) -> XMPPElement {
        .iq(type: "get", id: id, to: JID(local: "", domain: server), payload: XMPPElement("services", namespace: XMPPNamespace.externalServices))
    }
}
