/// The namespace URIs the client speaks (RFC 6120/6121/7395 and the XEPs named).
package enum XMPPNamespace {
    package static let client = "jabber:client"
    package static let framing = "urn:ietf:params:xml:ns:xmpp-framing"
    package static let streams = "http://etherx.jabber.org/streams"
    package static let streamErrors = "urn:ietf:params:xml:ns:xmpp-streams"
    package static let stanzaErrors = "urn:ietf:params:xml:ns:xmpp-stanzas"
    package static let sasl = "urn:ietf:params:xml:ns:xmpp-sasl"
    package static let bind = "urn:ietf:params:xml:ns:xmpp-bind"
    package static let session = "urn:ietf:params:xml:ns:xmpp-session"
    package static let roster = "jabber:iq:roster"
    package static let ping = "urn:xmpp:ping"
    package static let streamManagement = "urn:xmpp:sm:3"
    package static let externalServices = "urn:xmpp:extdisco:2"
}
