import CallScopeCore
import Foundation
import XMPP

// MARK: - Incoming elements, requests, sending

extension XMPPClient {
    /// One transport event of connection `connection`, in order.
    func handle(_ event: XMPPTransportEvent, connection: Int) async {
        guard connection == generation else { return }
        switch event {
        case .closed(let error):
            connectionEnded(error ?? XMPPError(.transport, "server closed the connection"), connection: connection)
        case .message(let bytes):
            let element: XMPPElement
            do { element = try XMPPElementReader.read(bytes, limits: configuration.readLimits) } catch {
                dropped(error)
                return
            }
            if var login = negotiation, loginWaiter != nil {
                let actions = login.receive(element)
                negotiation = login
                await perform(actions, connection: connection)
            } else {
                await handleEstablished(element)
            }
        }
    }

    private func handleEstablished(_ element: XMPPElement) async {
        if element.namespace == XMPPNamespace.streamManagement {
            switch element.name {
            case "r":
                if let counters = streamManagement { try? await transport?.send(counters.acknowledgement.xmlString()) }
            case "a":
                guard let handled = element.attributes["h"].flatMap(UInt32.init) else {
                    return dropped(XMPPError(.protocolViolation, "<a/> without a valid h"))
                }
                do { try streamManagement?.acknowledge(handled) } catch { dropped(error) }
            default:
                break
            }
            return
        }
        if element.isElement("close", namespace: XMPPNamespace.framing) || element.isElement("error", namespace: XMPPNamespace.streams) {
            // The server ends the stream; the transport's close follows and drives reconnection.
            if element.name == "close" { transport?.abort() }
            return
        }
        guard element.isStanza else {
            return dropped(XMPPError(.protocolViolation, "unexpected <\(element.name) xmlns='\(element.namespace)'> on an established stream"))
        }
        streamManagement?.received()
        statistics.stanzasReceived += 1
        switch element.name {
        case "iq": await handleIQ(element)
        case "presence": await handlePresence(element)
        case "message": handleRegisteredMessage(element)
        default: break
        }
    }

    private func handleIQ(_ iq: XMPPElement) async {
        let type = iq.attributes["type"] ?? ""
        let id = iq.attributes["id"] ?? ""
        if type == "result" || type == "error" {
            if let waiter = pending.removeValue(forKey: id) { waiter.resume(returning: .success(iq)) }
            return
        }
        guard type == "get" || type == "set", !id.isEmpty else {
            return dropped(XMPPError(.protocolViolation, "iq with type '\(type.prefix(20))' and id '\(id.prefix(40))'"))
        }
        let from = iq.attributes["from"].flatMap(JID.init)
        if type == "get", iq.child("ping", namespace: XMPPNamespace.ping) != nil {
            try? await sendStanza(.iq(type: "result", id: id, to: from))
            return
        }
        if type == "set", iq.child("query", namespace: XMPPNamespace.roster) != nil, let own = jid {
            do {
                yieldRoster(try roster.apply(iq, ownJID: own))
                try? await sendStanza(.iq(type: "result", id: id, to: from))
            } catch {
                dropped(error)
                try? await sendStanza(Self.errorReply(to: iq, condition: "forbidden", type: "auth"))
            }
            return
        }
        if let reply = handleRegisteredRequest(iq, from: from) {
            try? await sendStanza(reply)
            return
        }
        try? await sendStanza(Self.errorReply(to: iq, condition: "service-unavailable", type: "cancel"))
    }

    private func handlePresence(_ presence: XMPPElement) async {
        guard let own = jid else { return }
        if presence.attributes["type"] == "error" {
            // A presence of ours bounced (RFC 6120 §8.3): e.g. a friend request to a domain whose
            // server cannot be reached comes back with remote-server-not-found. Said and counted.
            return dropped(Self.bounce(presence))
        }
        let events: [RosterEvent]
        do { events = try roster.apply(presence, ownJID: own) } catch { return dropped(error) }
        var shown: [RosterEvent] = []
        for event in events {
            if case .subscriptionRequest(let contact) = event, let item = roster.items[contact],
               item.pendingOut || item.subscription == .to {
                // We asked them first: their request completes the friendship.
                try? await sendStanza(.presence(type: "subscribed", to: contact))
                continue
            }
            shown.append(event)
        }
        yieldRoster(shown)
    }

    /// The error a bounced stanza carries: who bounced it, its condition and text.
    static func bounce(_ stanza: XMPPElement) -> XMPPError {
        let error = stanza.child("error")
        let condition = error?.children.first { $0.namespace == "urn:ietf:params:xml:ns:xmpp-stanzas" && $0.name != "text" }?.name ?? "undefined-condition"
        let text = error?.children.first { $0.namespace == "urn:ietf:params:xml:ns:xmpp-stanzas" && $0.name == "text" }?.text
        let from = stanza.attributes["from"].map { String($0.prefix(200)) } ?? "(no sender)"
        return XMPPError(.stanzaError, "\(stanza.name) to \(from) bounced: \(condition)\(text.map { " (\($0.prefix(200)))" } ?? "")")
    }

    static func errorReply(to iq: XMPPElement, condition: String, type: String) -> XMPPElement {
        var reply = XMPPElement.iq(type: "error", id: iq.attributes["id"] ?? "", to: iq.attributes["from"].flatMap(JID.init))
        reply.children = [XMPPElement("error", namespace: XMPPNamespace.client, attributes: ["type": type],
                                      children: [XMPPElement(condition, namespace: XMPPNamespace.stanzaErrors)])]
        return reply
    }

    // MARK: - Sending

    /// Sends one element; stanzas are counted for XEP-0198.
    func sendStanza(_ element: XMPPElement) async throws(XMPPError) {
        guard let transport, ready else { throw XMPPError(.notConnected, "not connected to \(account.jid.domain)") }
        try await transport.send(element.xmlString())
        if element.isStanza { streamManagement?.sent(element) }
    }

    /// Sends the IQ `build(id)` and waits for its result or error (bounded by the request timeout).
    func request(_ build: (String) -> XMPPElement) async throws(XMPPError) -> XMPPElement {
        guard transport != nil, ready else { throw XMPPError(.notConnected, "not connected to \(account.jid.domain)") }
        nextRequestNumber += 1
        let id = "callscope-\(nextRequestNumber)"
        let stanza = build(id)
        let timeout = configuration.requestTimeout
        let result = await withCheckedContinuation { continuation in
            pending[id] = continuation
            Task { await self.transmit(stanza, id: id) }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.resolve(id, .failure(XMPPError(.timeout, "no answer to <\(stanza.children.first?.name ?? "iq")> within \(timeout)")))
            }
        }
        return try result.get()
    }

    private func transmit(_ stanza: XMPPElement, id: String) async {
        do { try await sendStanza(stanza) } catch { resolve(id, .failure(error)) }
    }

    private func resolve(_ id: String, _ result: Result<XMPPElement, XMPPError>) {
        pending.removeValue(forKey: id)?.resume(returning: result)
    }

    // MARK: - Events

    func yieldRoster(_ events: [RosterEvent]) {
        fanOut.yield(events.map(XMPPClientEvent.roster))
    }

    func dropped(_ error: XMPPError) {
        statistics.droppedMessages += 1
        fanOut.yield([.droppedMessage(error)])
    }
}
