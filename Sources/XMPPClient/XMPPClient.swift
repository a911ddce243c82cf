import CallScopeCore
import Foundation
import XMPP

/// An XMPP client for one account, over WebSocket (RFC 7395): login with SCRAM-SHA-1, resource
/// binding, the roster's friends (mutual subscriptions) and their presence, XEP-0215 STUN/TURN
/// services, XEP-0199 pings, and automatic reconnection that resumes the XEP-0198 session when
/// the server allows (else logs in again and fetches the roster anew).
///
/// ```swift
/// let client = XMPPClient(account: XMPPAccount(jid: JID("alice@example.org")!, password: "…",
///                                              webSocketURL: URL(string: "ws://example.org:5280/xmpp-websocket")!))
/// let events = client.events()
/// try await client.connect()
/// for await event in events { … }
/// ```
public actor XMPPClient {
    /// The account.
    public let account: XMPPAccount
    /// Timing and limits.
    public let configuration: XMPPClientConfiguration
    /// Counts since creation.
    public internal(set) var statistics = XMPPClientStatistics()
    /// The full JID the server bound, once connected.
    public internal(set) var jid: JID?

    let makeTransport: XMPPTransportFactory
    let fanOut = EventFanOut<XMPPClientEvent>()
    var roster = RosterState()
    /// Whether the user wants the client connected (false after `disconnect`).
    var wanted = false
    /// Bumped for each connection: events of an older one are ignored.
    var generation = 0
    var transport: (any XMPPTransport)?
    var ready = false
    var negotiation: XMPPStreamNegotiation?
    var loginWaiter: CheckedContinuation<Result<XMPPStreamNegotiation.Outcome, XMPPError>, Never>?
    var streamManagement: StreamManagementCounters?
    var resumption: (id: String, jid: JID)?
    var saltedPassword: SCRAMSHA1.SaltedPassword?
    var pending: [String: CheckedContinuation<Result<XMPPElement, XMPPError>, Never>] = [:]
    var nextRequestNumber = 0
    var pingTask: Task<Void, Never>?
    var reconnectTask: Task<Void, Never>?
    /// Handlers of incoming `get`/`set` IQs by payload namespace (Jingle, for friend connections).
    var requestHandlers: [String: XMPPRequestHandler] = [:]
    /// Handlers of incoming messages by the namespace of their first child (XEP-0353).
    var messageHandlers: [String: XMPPMessageHandler] = [:]

    /// A client for `account`; nothing happens until ``connect()``.
    public init(account: XMPPAccount, configuration: XMPPClientConfiguration = XMPPClientConfiguration()) {
        self.init(account: account, configuration: configuration, transport: platformTransport(for:))
    }

    /// A client whose connections come from `transport` (tests).
    package init(account: XMPPAccount, configuration: XMPPClientConfiguration, transport: @escaping XMPPTransportFactory) {
        self.account = account
        self.configuration = configuration
        makeTransport = transport
    }

    /// A stream of every later event, in order.
    public nonisolated func events() -> AsyncStream<XMPPClientEvent> { fanOut.makeStream() }

    /// The friends (mutual subscriptions) and their presence, as known now.
    public var friends: [Friend] { roster.friends }

    /// Connects and logs in; returns once the roster is fetched and our presence sent. From then
    /// on a lost connection is re-established by the client itself until ``disconnect()``.
    public func connect() async throws(XMPPError) {
        guard !wanted else { return }
        wanted = true
        do {
            try await establish()
        } catch {
            wanted = false
            throw error
        }
    }

    /// Logs out cleanly (unavailable presence, stream close: friends see us offline at once)
    /// and stops reconnecting.
    public func disconnect() async {
        wanted = false
        reconnectTask?.cancel()
        reconnectTask = nil
        pingTask?.cancel()
        if let transport, ready {
            try? await sendStanza(.presence(type: "unavailable"))
            try? await transport.send(XMPPElement.streamClose.xmlString())
            await transport.close()
        } else {
            transport?.abort()
        }
        endConnection()
        fanOut.yield([.disconnected(nil)])
    }

    /// Asks `contact` to be a friend (`<presence type='subscribe'/>`). When they approve and ask
    /// back, the client approves them by itself: they become a friend on both sides.
    public func addFriend(_ contact: JID) async throws(XMPPError) {
        try await sendStanza(.presence(type: "subscribe", to: contact.bare))
    }

    /// Approves a friend request from `contact` (`subscribed`) and asks them back when we do not
    /// see their presence yet, so the subscription becomes mutual.
    public func approveFriendRequest(from contact: JID) async throws(XMPPError) {
        try await sendStanza(.presence(type: "subscribed", to: contact.bare))
        let alreadyAsked = roster.items[contact.bare].map { $0.subscription == .to || $0.subscription == .both || $0.pendingOut } ?? false
        if !alreadyAsked {
            try await sendStanza(.presence(type: "subscribe", to: contact.bare))
        }
    }

    /// The STUN/TURN servers the XMPP server announces, with their credentials (XEP-0215).
    public func externalServices() async throws(XMPPError) -> [ExternalService] {
        let domain = account.jid.domain
        let result = try await request { ExternalService.request(id: $0, server: domain) }
        return try ExternalService.parse(result: result).services
    }

    /// One XEP-0199 ping to the server; returns the round trip.
    public func ping() async throws(XMPPError) -> Duration {
        let start = ContinuousClock.now
        let domain = account.jid.domain
        let result = try await request { id in
            .iq(type: "get", id: id, to: JID(local: "", domain: domain), payload: XMPPElement("ping", namespace: XMPPNamespace.ping))
        }
        if let condition = result.stanzaErrorCondition { throw XMPPError(.stanzaError, "ping refused: \(condition)") }
        return ContinuousClock.now - start
    }

    /// Drops the connection with no goodbye, as a network loss would (tests): the client then
    /// reconnects by itself.
    package func dropConnection() { transport?.abort() }
}
