import XMPP

/// What an ``XMPPClient`` reports, in order.
public enum XMPPClientEvent: Hashable, Sendable {
    /// The stream is ready: logged in (`resumed` false: roster fetched, presence sent) or an
    /// earlier XEP-0198 session resumed after a reconnection (roster and presence stand).
    case connected(jid: JID, resumed: Bool)
    /// The connection was lost; the client reconnects by itself.
    case connectionLost(XMPPError)
    /// The client stopped: after ``XMPPClient/disconnect()`` (`nil`), or a failure it will not
    /// retry (refused credentials).
    case disconnected(XMPPError?)
    /// A friend came, changed or went, or someone asks to be one.
    case roster(RosterEvent)
    /// An incoming message was malformed or hostile and was dropped, or a stanza of ours came
    /// back as an error (`stanzaError`: e.g. a friend request to a domain whose server cannot be
    /// reached, `remote-server-not-found`); counted in ``XMPPClientStatistics/droppedMessages``.
    case droppedMessage(XMPPError)
}

/// Counts kept by an ``XMPPClient``.
public struct XMPPClientStatistics: Hashable, Sendable {
    /// Stanzas received and handled.
    public var stanzasReceived = 0
    /// Messages dropped as malformed or hostile, and stanzas of ours that came back as errors.
    public var droppedMessages = 0
    /// Connections re-established after a loss.
    public var reconnections = 0
    /// Of those, the ones that resumed the XEP-0198 session.
    public var resumptions = 0
}
