/// Builders for the stanzas and stream elements the client sends.
extension XMPPElement {
    /// The WebSocket stream header (RFC 7395 §3.4): `<open xmlns=framing to=DOMAIN version=1.0/>`.
    package static func streamOpen(to domain: String) -> XMPPElement {
        XMPPElement("open", namespace: XMPPNamespace.framing, attributes: ["to": domain, "version": "1.0"])
    }

    /// The WebSocket stream close (RFC 7395 §3.6).
    package static var streamClose: XMPPElement { XMPPElement("close", namespace: XMPPNamespace.framing) }

    /// An `<iq>` of `type` (`get`, `set`, `result`, `error`) with one payload child.
    package static func iq(type: String, id: String, to: JID? = nil, payload: XMPPElement? = nil) -> XMPPElement {
        var attributes = ["type": type, "id": id]
        if let to { attributes["to"] = to.description }
        return XMPPElement("iq", namespace: XMPPNamespace.client, attributes: attributes, children: payload.map { [$0] } ?? [])
    }

    /// A `<presence>`; `type` nil is available presence.
    package static func presence(type: String? = nil, to: JID? = nil) -> XMPPElement {
        var attributes: [String: String] = [:]
        if let type { attributes["type"] = type }
        if let to { attributes["to"] = to.description }
        return XMPPElement("presence", namespace: XMPPNamespace.client, attributes: attributes)
    }

    /// Whether this is a stanza (message, presence, iq in `jabber:client`): what XEP-0198 counts.
    package var isStanza: Bool {
        namespace == XMPPNamespace.client && (name == "message" || name == "presence" || name == "iq")
    }

    /// The first child of a stanza error's `<error>` in the stanzas namespace (the condition),
    /// `nil` when the stanza is not an error.
    package var stanzaErrorCondition: String? {
        guard self["type"] == "error" else { return nil }
        return child("error")?.children.first { $0.namespace == XMPPNamespace.stanzaErrors }?.name ?? "undefined-condition"
    }

    private subscript(_ name: String) -> String? { attributes[name] }
}
