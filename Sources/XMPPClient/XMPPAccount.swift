import Foundation
import XMPP

/// Who logs in, where.
public struct XMPPAccount: Hashable, Sendable {
    /// The bare JID (`alice@example.org`).
    public var jid: JID
    /// The password (SCRAM-SHA-1 never sends it; PLAIN does, when allowed).
    public var password: String
    /// The resource to bind (`callscope`); the server may change it.
    public var resource: String
    /// The server's XMPP-over-WebSocket endpoint (`ws://host:5280/xmpp-websocket`).
    public var webSocketURL: URL
    /// Whether SASL PLAIN may be used when the server offers no SCRAM (off by default).
    public var allowsPlainAuthentication: Bool

    /// Creates an account.
    public init(jid: JID, password: String, resource: String = "callscope", webSocketURL: URL, allowsPlainAuthentication: Bool = false) {
        self.jid = jid.bare
        self.password = password
        self.resource = resource
        self.webSocketURL = webSocketURL
        self.allowsPlainAuthentication = allowsPlainAuthentication
    }
}

/// Timing and limits of an ``XMPPClient``.
public struct XMPPClientConfiguration: Hashable, Sendable {
    /// The whole login (connect, SASL, bind or resume, roster) must finish within this.
    public var loginTimeout: Duration
    /// An IQ request (ping, external services) must be answered within this.
    public var requestTimeout: Duration
    /// A XEP-0199 ping to the server this often; an unanswered one drops the connection (and
    /// reconnection starts).
    public var pingInterval: Duration
    /// Waits before each reconnection attempt; the last repeats until ``XMPPClient/disconnect()``.
    public var reconnectionDelays: [Duration]
    /// Bounds on each incoming message.
    public var readLimits: XMPPReadLimits

    /// Creates a configuration.
    public init(loginTimeout: Duration = .seconds(15), requestTimeout: Duration = .seconds(10), pingInterval: Duration = .seconds(30),
                reconnectionDelays: [Duration] = [.milliseconds(200), .seconds(1), .seconds(2), .seconds(5), .seconds(10)],
                readLimits: XMPPReadLimits = XMPPReadLimits()) {
        self.loginTimeout = loginTimeout
        self.requestTimeout = requestTimeout
        self.pingInterval = pingInterval
        self.reconnectionDelays = reconnectionDelays.isEmpty ? [.seconds(1)] : reconnectionDelays
        self.readLimits = readLimits
    }
}
