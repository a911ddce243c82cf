import XMPP

/// Handles one incoming `<message/>` whose first child is in a registered namespace: called on
/// the client's actor, in arrival order, with the child and the sender's full JID. It must
/// return quickly (hand the message on through an `AsyncStream`).
package typealias XMPPMessageHandler = @Sendable (_ payload: XMPPElement, _ from: JID) -> Void

// MARK: - Messages for protocols built on the client (XEP-0353 call initiation)

extension XMPPClient {
    /// Routes incoming messages whose first child is in `namespace` to `handler` (replacing any
    /// before); without one they are ignored, as before.
    package func handleMessages(namespace: String, _ handler: @escaping XMPPMessageHandler) {
        messageHandlers[namespace] = handler
    }

    /// Sends `<message type='chat' to=…>` with `payload` (no answer is awaited: messages have none).
    package func sendMessage(_ payload: XMPPElement, to recipient: JID) async throws(XMPPError) {
        nextRequestNumber += 1
        let message = XMPPElement("message", namespace: XMPPNamespace.client,
                                  attributes: ["type": "chat", "to": recipient.description, "id": "callscope-m\(nextRequestNumber)"],
                                  children: [payload])
        try await sendStanza(message)
    }

    /// Hands a received message to its namespace's handler, if any (messages without a sender
    /// or a child are ignored).
    func handleRegisteredMessage(_ message: XMPPElement) {
        guard message.attributes["type"] != "error", let payload = message.children.first(where: { messageHandlers[$0.namespace] != nil }),
              let handler = messageHandlers[payload.namespace], let from = message.attributes["from"].flatMap(JID.init) else { return }
        handler(payload, from)
    }
}
