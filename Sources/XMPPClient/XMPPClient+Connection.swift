import CallScopeCore
import Foundation
import XMPP

// MARK: - Connecting, login, reconnection

extension XMPPClient {
    /// One connection: transport, negotiation (resuming when possible), then the roster and our
    /// presence for a new session. Throws after cleaning up.
    func establish(reconnecting: Bool = false) async throws(XMPPError) {
        generation += 1
        let connection = generation
        do throws(XMPPError) {
            let transport = try makeTransport(account.webSocketURL)
            let events = try await transport.connect(timeout: configuration.loginTimeout)
            guard wanted, connection == generation else {
                transport.abort()
                throw XMPPError(.notConnected, "connection superseded")
            }
            self.transport = transport
            let request = resumption.map { XMPPStreamNegotiation.Resumption(id: $0.id, jid: $0.jid, handled: streamManagement?.inboundHandled ?? 0) }
            let negotiation = XMPPStreamNegotiation(domain: account.jid.domain, username: account.jid.local, password: account.password,
                                                    resource: account.resource, allowPlain: account.allowsPlainAuthentication,
                                                    resumption: request, cachedSaltedPassword: saltedPassword)
            let start = negotiation.start()
            self.negotiation = negotiation
            Task { [weak self] in
                for await event in events { await self?.handle(event, connection: connection) }
            }
            let timeout = configuration.loginTimeout
            let outcome = await withCheckedContinuation { continuation in
                loginWaiter = continuation
                Task { await self.perform(start, connection: connection) }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    await self?.finishLogin(.failure(XMPPError(.timeout, "login not finished within \(timeout)")), connection: connection)
                }
            }
            let established = try outcome.get()
            try await completeLogin(established, connection: connection, reconnecting: reconnecting)
        } catch {
            if connection == generation {
                transport?.abort()
                endConnection()
            }
            throw error
        }
    }

    private func completeLogin(_ outcome: XMPPStreamNegotiation.Outcome, connection: Int, reconnecting: Bool) async throws(XMPPError) {
        saltedPassword = negotiation?.saltedPassword ?? saltedPassword
        negotiation = nil
        jid = outcome.jid
        if outcome.resumed, var counters = streamManagement, let handled = outcome.serverHandled {
            let unacknowledged = try counters.resumed(serverHandled: handled)
            streamManagement = counters
            ready = true
            for stanza in unacknowledged { try await sendStanza(stanza) }
            statistics.resumptions += 1
        } else {
            streamManagement = outcome.streamManagement ? StreamManagementCounters() : nil
            resumption = outcome.resumptionID.map { ($0, outcome.jid) }
            yieldRoster(roster.clearPresence())
            ready = true
            let result = try await request { .iq(type: "get", id: $0, payload: XMPPElement("query", namespace: XMPPNamespace.roster)) }
            if let condition = result.stanzaErrorCondition { throw XMPPError(.stanzaError, "roster refused: \(condition)") }
            do { yieldRoster(try roster.apply(result, ownJID: outcome.jid)) } catch { dropped(error) }
            try await sendStanza(.presence())
        }
        guard connection == generation else { throw XMPPError(.notConnected, "connection superseded") }
        if reconnecting { statistics.reconnections += 1 }   // counted before the event that reports it
        startPinging(connection: connection)
        fanOut.yield([.connected(jid: outcome.jid, resumed: outcome.resumed)])
    }

    func finishLogin(_ result: Result<XMPPStreamNegotiation.Outcome, XMPPError>, connection: Int) {
        guard connection == generation, let waiter = loginWaiter else { return }
        loginWaiter = nil
        waiter.resume(returning: result)
    }

    /// Performs the negotiation's actions.
    func perform(_ actions: [XMPPStreamNegotiation.Action], connection: Int) async {
        for action in actions {
            guard connection == generation else { return }
            switch action {
            case .send(let element):
                do { try await transport?.send(element.xmlString()) } catch { finishLogin(.failure(error), connection: connection) }
            case .established(let outcome):
                finishLogin(.success(outcome), connection: connection)
            case .failed(let error):
                finishLogin(.failure(error), connection: connection)
            }
        }
    }

    /// Forgets the current connection (its late events are ignored) and fails its requests.
    func endConnection() {
        generation += 1
        transport = nil
        ready = false
        negotiation = nil
        pingTask?.cancel()
        pingTask = nil
        let waiting = pending
        pending.removeAll()
        for waiter in waiting.values { waiter.resume(returning: .failure(XMPPError(.notConnected, "connection lost before the answer"))) }
        if let waiter = loginWaiter {
            loginWaiter = nil
            waiter.resume(returning: .failure(XMPPError(.transport, "connection lost during login")))
        }
    }

    /// The transport ended under us.
    func connectionEnded(_ error: XMPPError, connection: Int) {
        guard connection == generation else { return }
        let duringLogin = loginWaiter != nil || !ready
        if let waiter = loginWaiter {
            loginWaiter = nil
            waiter.resume(returning: .failure(error))
        }
        guard !duringLogin else { return }   // establish() cleans up and reports
        endConnection()
        guard wanted else { return }
        fanOut.yield([.connectionLost(error)])
        scheduleReconnection()
    }

    func scheduleReconnection() {
        guard reconnectTask == nil else { return }
        reconnectTask = Task { [weak self] in await self?.reconnect() }
    }

    private func reconnect() async {
        defer { reconnectTask = nil }
        var attempt = 0
        while wanted, !Task.isCancelled {
            let delays = configuration.reconnectionDelays
            try? await Task.sleep(for: delays[min(attempt, delays.count - 1)])
            attempt += 1
            guard wanted, !Task.isCancelled else { return }
            do {
                try await establish(reconnecting: true)
                return
            } catch {
                if error.code == .authenticationFailed {
                    wanted = false
                    fanOut.yield([.disconnected(error)])
                    return
                }
            }
        }
    }

    private func startPinging(connection: Int) {
        pingTask?.cancel()
        let interval = configuration.pingInterval
        pingTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.keepAlive(connection: connection)
            }
        }
    }

    /// A ping (an unanswered one drops the connection) and a XEP-0198 ack request.
    private func keepAlive(connection: Int) async {
        guard connection == generation, ready else { return }
        do {
            _ = try await ping()
            if streamManagement != nil { try await transport?.send(XMPPElement("r", namespace: XMPPNamespace.streamManagement).xmlString()) }
        } catch {
            if connection == generation { transport?.abort() }
        }
    }
}
