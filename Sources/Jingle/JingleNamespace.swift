/// The namespace URIs of the Jingle XEPs this module speaks.
package enum JingleNamespace {
    /// XEP-0166.
    package static let jingle = "urn:xmpp:jingle:1"
    /// XEP-0166 §10: Jingle-specific error conditions.
    package static let errors = "urn:xmpp:jingle:errors:1"
    /// XEP-0167.
    package static let rtp = "urn:xmpp:jingle:apps:rtp:1"
    /// XEP-0176.
    package static let iceUDP = "urn:xmpp:jingle:transports:ice-udp:1"
    /// XEP-0320.
    package static let dtls = "urn:xmpp:jingle:apps:dtls:0"
    /// XEP-0293.
    package static let rtcpFeedback = "urn:xmpp:jingle:apps:rtp:rtcp-fb:0"
    /// XEP-0294 (also `<extmap-allow-mixed/>`).
    package static let headerExtensions = "urn:xmpp:jingle:apps:rtp:rtp-hdrext:0"
    /// XEP-0339.
    package static let sources = "urn:xmpp:jingle:apps:rtp:ssma:0"
    /// XEP-0338.
    package static let grouping = "urn:xmpp:jingle:apps:grouping:0"
    /// XEP-0343: the `<sctpmap/>` in the ICE-UDP transport.
    package static let dtlsSCTP = "urn:xmpp:jingle:transports:dtls-sctp:1"
    /// XEP-0343: `<channel/>`; also the namespace of the data-channel content's `<description/>`
    /// (XEP-0343 names no application for a bare data channel: this is what deployed Jingle
    /// stacks use).
    package static let webRTCDataChannel = "urn:xmpp:jingle:transports:webrtc-datachannel:0"
    /// XEP-0353.
    package static let jingleMessage = "urn:xmpp:jingle-message:0"
    /// What no XEP carries and Chromium needs or uses: `a=rid`, `a=simulcast`, the media-level
    /// `a=msid`, `a=rtcp-rsize` and other media attributes kept verbatim (docs/peer-to-peer.md,
    /// "Jingle"). Other Jingle clients ignore these elements, as XEP-0166 asks of unknown ones.
    package static let callScopeSDP = "urn:callscope:jingle:sdp:0"
}
