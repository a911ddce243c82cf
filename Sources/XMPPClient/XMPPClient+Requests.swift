import XMPP

/// Handles one incoming `get`/`set` IQ whose payload is in a registered namespace: called on the
/// client's actor, in arrival order; returns `nil` to acknowledge it with an empty result, or a
/// stanza error condition (RFC 6120 §8.3.3, e.g. `item-not-found`) to refuse it. It must return
/// quickly: hand the IQ on (an `AsyncStream`) rather than work in it.
package typealias XMPPRequestHandler = @Sendable (_ iq: XMPPElement, _ from: JID) -> String?

// MARK: - IQ requests for protocols built on the client (Jingle)

extension XMPPClient {
    /// Routes incoming IQs whose payload is in `namespace` to `handler` (replacing any before);
    /// without one they are refused with `service-unavailable`.
    package func handleRequests(namespace: String, _ handler: @escaping XMPPRequestHandler) {
        requestHandlers[namespace] = handler
    }

    /// Sends `<iq type='set' to=…>` with `payload` and waits for the result; an error reply
    /// throws `stanzaError` with its condition.
    package func set(_ payload: XMPPElement, to recipient: JID) async throws(XMPPError) {
        let result = try await request { .iq(type: "set", id: $0, to: recipient, payload: payload) }
        if let condition = result.stanzaErrorCondition {
            throw XMPPError(.stanzaError, "\(recipient) refused <\(payload.name)>: \(condition)")
        }
    }

    /// The full JIDs of a contact's available resources, sorted (empty when offline).
    package func availableResources(of contact: JID) -> [JID] {
        (roster.presences[contact.bare] ?? [:]).keys.sorted().map { JID(local: contact.local, domain: contact.domain, resource: $0) }
    }

    /// The reply to a registered request, or `nil` when no handler takes `iq`.
    func handleRegisteredRequest(_ iq: XMPPElement, from: JID?) -> XMPPElement? {
        guard let payload = iq.children.first, let handler = requestHandlers[payload.namespace], let from else { return nil }
        if let condition = handler(iq, from) {
            return Self.errorReply(to: iq, condition: condition, type: "cancel")
        }
        return .iq(type: "result", id: iq.attributes["id"] ?? "", to: from)
    }
}
