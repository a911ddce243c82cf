import CallScopeCore
import XMPP
import XMPPClient

/// One connection to an in-memory XMPP server, for unit tests of code that speaks XMPP: it
/// answers the login (PLAIN SASL, then resource binding as `boundJID`) and the roster query
/// (every JID of `roster` a mutual friend), records every message the client sends, and hands
/// every other stanza to `respond`, which may answer with ``deliver(_:)``. The same object can
/// serve the client's later connections too: each one logs in again.
package final class ScriptedXMPPServer: XMPPTransport, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`; the rest is immutable.
    private let state = Locked<(continuation: AsyncStream<XMPPTransportEvent>.Continuation?, authenticated: Bool, sent: [String])>((nil, false, []))
    private let boundJID: String
    private let roster: [String]
    private let respond: @Sendable (XMPPElement, ScriptedXMPPServer) -> Void

    /// A server for one connection.
    package init(boundJID: String = "me@example.org/r", roster: [String] = [],
                 respond: @escaping @Sendable (XMPPElement, ScriptedXMPPServer) -> Void = { _, _ in }) {
        self.boundJID = boundJID
        self.roster = roster
        self.respond = respond
    }

    /// Everything the client sent, in order.
    package var sent: [String] { state.withLock { $0.sent } }

    package func connect(timeout: Duration) async throws(XMPPError) -> AsyncStream<XMPPTransportEvent> {
        let (stream, continuation) = AsyncStream<XMPPTransportEvent>.makeStream()
        state.withLock {
            $0.continuation = continuation
            $0.authenticated = false
        }
        return stream
    }

    package func send(_ text: String) async throws(XMPPError) {
        let authenticated = state.withLock { state -> Bool in
            state.sent.append(text)
            return state.authenticated
        }
        let element = try XMPPElementReader.read(Array(text.utf8))
        let id = element.attributes["id"] ?? ""
        switch element.name {
        case "open":
            deliver("<open xmlns='urn:ietf:params:xml:ns:xmpp-framing' version='1.0' from='example.org' id='1'/>")
            deliver(authenticated
                ? "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></stream:features>"
                : "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>")
        case "auth":
            state.withLock { $0.authenticated = true }
            deliver("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>")
        case "iq" where element.child("bind", namespace: XMPPNamespace.bind) != nil:
            deliver("<iq xmlns='jabber:client' type='result' id='\(id)'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>\(boundJID)</jid></bind></iq>")
        case "iq" where element.child("query", namespace: XMPPNamespace.roster) != nil:
            let items = roster.map { "<item jid='\($0)' subscription='both'/>" }.joined()
            deliver("<iq xmlns='jabber:client' type='result' id='\(id)'><query xmlns='jabber:iq:roster'>\(items)</query></iq>")
        default:
            respond(element, self)
        }
    }

    /// Sends `text` to the client as one message.
    package func deliver(_ text: String) { deliver(bytes: Array(text.utf8)) }

    /// Sends raw bytes to the client as one message (hostile input included).
    package func deliver(bytes: [UInt8]) { _ = state.withLock { $0.continuation }?.yield(.message(bytes)) }

    package func close() async { end(nil) }
    package func abort() { end(XMPPError(.transport, "aborted")) }

    /// Ends the connection, as the server or the network would: `nil` for a clean close.
    package func end(_ error: XMPPError?) {
        let continuation = state.withLock { $0.continuation }
        continuation?.yield(.closed(error))
        continuation?.finish()
    }
}
