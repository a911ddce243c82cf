import CallScopeCore
import Foundation

/// The login of one XMPP-over-WebSocket stream as a value: open, SASL (SCRAM-SHA-1, else PLAIN
/// when allowed), restart, then XEP-0198 resumption of an earlier session or resource binding
/// and XEP-0198 enabling. `receive(_:)` takes each element from the server and returns what to
/// do; no I/O and no clock here (the client times the whole negotiation out).
package struct XMPPStreamNegotiation: Sendable {
    /// What the caller must do.
    package enum Action: Hashable, Sendable {
        /// Send this element.
        case send(XMPPElement)
        /// The stream is ready for stanzas.
        case established(Outcome)
        /// The negotiation failed; close the connection.
        case failed(XMPPError)
    }

    /// A ready stream.
    package struct Outcome: Hashable, Sendable {
        /// The full JID the server bound (for a resumed stream: the earlier one).
        package var jid: JID
        /// Whether an earlier XEP-0198 session was resumed (its roster and presence stand).
        package var resumed: Bool
        /// On resumption, the server's count of our stanzas it handled (`<resumed h=>`).
        package var serverHandled: UInt32?
        /// The XEP-0198 session id when the server enabled resumption.
        package var resumptionID: String?
        /// Whether XEP-0198 is on for this stream (counters start now).
        package var streamManagement: Bool

        package init(jid: JID, resumed: Bool, serverHandled: UInt32?, resumptionID: String?, streamManagement: Bool) {
            self.jid = jid
            self.resumed = resumed
            self.serverHandled = serverHandled
            self.resumptionID = resumptionID
            self.streamManagement = streamManagement
        }
    }

    /// An earlier XEP-0198 session to resume.
    package struct Resumption: Hashable, Sendable {
        /// Its id (`previd`).
        package var id: String
        /// Its full JID.
        package var jid: JID
        /// Our count of the server's stanzas handled (`h`).
        package var handled: UInt32

        /// Creates a resumption request.
        package init(id: String, jid: JID, handled: UInt32) {
            self.id = id
            self.jid = jid
            self.handled = handled
        }
    }

    private enum Phase: Equatable {
        case awaitingOpen
        case awaitingFeatures
        case authenticating
        case resuming
        case binding
        case enabling
        case done
    }

    private let domain: String
    private let username: String
    private let password: String
    private let resource: String
    private let allowPlain: Bool
    private var resumption: Resumption?
    private var scram: SCRAMSHA1
    private var phase = Phase.awaitingOpen
    private var authenticated = false
    private var boundJID: JID?
    private var streamManagementOffered = false

    /// A negotiation for `username@domain/resource`; `resumption` resumes an earlier session when
    /// the server offers XEP-0198; `allowPlain` permits SASL PLAIN when no SCRAM is offered.
    package init(domain: String, username: String, password: String, resource: String, allowPlain: Bool = false,
                resumption: Resumption? = nil, clientNonce: String = SCRAMSHA1.randomNonce(),
                cachedSaltedPassword: SCRAMSHA1.SaltedPassword? = nil) {
        self.domain = domain
        self.username = username
        self.password = password
        self.resource = resource
        self.allowPlain = allowPlain
        self.resumption = resumption
        scram = SCRAMSHA1(username: username, password: password, clientNonce: clientNonce, cached: cachedSaltedPassword)
    }

    /// The salted password of this login, to pass to the next one.
    package var saltedPassword: SCRAMSHA1.SaltedPassword? { scram.saltedPassword }

    /// The first element to send: the stream header.
    package func start() -> [Action] { [.send(.streamOpen(to: domain))] }

    /// Takes one element from the server.
    package mutating func receive(_ element: XMPPElement) -> [Action] {
        guard phase != .done else { return [] }
        if element.isElement("error", namespace: XMPPNamespace.streams) {
            return fail(.streamError, "stream error: \(element.children.first { $0.namespace == XMPPNamespace.streamErrors }?.name ?? "undefined-condition")")
        }
        if element.isElement("close", namespace: XMPPNamespace.framing) {
            return fail(.transport, "server closed the stream during login")
        }
        switch phase {
        case .awaitingOpen:
            guard element.isElement("open", namespace: XMPPNamespace.framing) else { return unexpected(element) }
            guard element.attributes["version"] == "1.0" else { return fail(.protocolViolation, "stream version \(element.attributes["version"] ?? "missing"), not 1.0") }
            phase = .awaitingFeatures
            return []
        case .awaitingFeatures:
            guard element.isElement("features", namespace: XMPPNamespace.streams) else { return unexpected(element) }
            return authenticated ? afterAuthentication(element) : beginAuthentication(element)
        case .authenticating:
            return continueAuthentication(element)
        case .resuming:
            if element.isElement("resumed", namespace: XMPPNamespace.streamManagement), let resumption {
                let handled = element.attributes["h"].flatMap(UInt32.init)
                guard handled != nil else { return fail(.protocolViolation, "<resumed> without a valid h") }
                phase = .done
                return [.established(Outcome(jid: resumption.jid, resumed: true, serverHandled: handled, resumptionID: resumption.id, streamManagement: true))]
            }
            if element.isElement("failed", namespace: XMPPNamespace.streamManagement) {
                // The session is gone (timed out on the server): bind a new one.
                resumption = nil
                return bind()
            }
            return unexpected(element)
        case .binding:
            guard element.name == "iq", element.namespace == XMPPNamespace.client, element.attributes["id"] == "bind" else { return unexpected(element) }
            if let condition = element.stanzaErrorCondition { return fail(.stanzaError, "resource binding refused: \(condition)") }
            guard let text = element.child("bind", namespace: XMPPNamespace.bind)?.child("jid")?.text, let jid = JID(text), !jid.resource.isEmpty else {
                return fail(.protocolViolation, "resource binding result without a full JID")
            }
            boundJID = jid
            guard streamManagementOffered else {
                phase = .done
                return [.established(Outcome(jid: jid, resumed: false, serverHandled: nil, resumptionID: nil, streamManagement: false))]
            }
            phase = .enabling
            return [.send(XMPPElement("enable", namespace: XMPPNamespace.streamManagement, attributes: ["resume": "true"]))]
        case .enabling:
            guard let jid = boundJID else { return unexpected(element) }
            phase = .done
            if element.isElement("enabled", namespace: XMPPNamespace.streamManagement) {
                let resumable = element.attributes["resume"] == "true" || element.attributes["resume"] == "1"
                return [.established(Outcome(jid: jid, resumed: false, serverHandled: nil, resumptionID: resumable ? element.attributes["id"] : nil, streamManagement: true))]
            }
            if element.isElement("failed", namespace: XMPPNamespace.streamManagement) {
                return [.established(Outcome(jid: jid, resumed: false, serverHandled: nil, resumptionID: nil, streamManagement: false))]
            }
            phase = .enabling
            return unexpected(element)
        case .done:
            return []
        }
    }

    // MARK: - Steps

    private mutating func beginAuthentication(_ features: XMPPElement) -> [Action] {
        let mechanisms = Set(features.child("mechanisms", namespace: XMPPNamespace.sasl)?.children("mechanism").map(\.text) ?? [])
        phase = .authenticating
        if mechanisms.contains("SCRAM-SHA-1") {
            let first = Data(scram.clientFirstMessage.utf8).base64EncodedString()
            return [.send(XMPPElement("auth", namespace: XMPPNamespace.sasl, attributes: ["mechanism": "SCRAM-SHA-1"], text: first))]
        }
        if allowPlain, mechanisms.contains("PLAIN") {
            return [.send(XMPPElement("auth", namespace: XMPPNamespace.sasl, attributes: ["mechanism": "PLAIN"],
                                      text: SASLPlain.initialResponse(username: username, password: password)))]
        }
        return fail(.authenticationFailed, "no usable SASL mechanism offered (\(mechanisms.sorted().joined(separator: ", ")))")
    }

    private mutating func continueAuthentication(_ element: XMPPElement) -> [Action] {
        guard element.namespace == XMPPNamespace.sasl else { return unexpected(element) }
        switch element.name {
        case "challenge":
            guard let challenge = Data(base64Encoded: element.text).flatMap({ String(data: $0, encoding: .utf8) }) else {
                return fail(.authenticationFailed, "SASL challenge is not base64 UTF-8")
            }
            do {
                let response = try scram.respond(toServerFirst: challenge)
                return [.send(XMPPElement("response", namespace: XMPPNamespace.sasl, text: Data(response.utf8).base64EncodedString()))]
            } catch {
                return fail(error.code, error.message)
            }
        case "success":
            if !element.text.isEmpty {
                // SCRAM's server-final; PLAIN sends none.
                guard let final = Data(base64Encoded: element.text).flatMap({ String(data: $0, encoding: .utf8) }) else {
                    return fail(.authenticationFailed, "SASL success data is not base64 UTF-8")
                }
                do { try scram.verify(serverFinal: final) } catch { return fail(error.code, error.message) }
            }
            authenticated = true
            phase = .awaitingOpen
            return [.send(.streamOpen(to: domain))]
        case "failure":
            let condition = element.children.first?.name ?? "not-authorized"
            return fail(.authenticationFailed, "server refused the credentials of \(username)@\(domain): \(condition)")
        default:
            return unexpected(element)
        }
    }

    private mutating func afterAuthentication(_ features: XMPPElement) -> [Action] {
        streamManagementOffered = features.child("sm", namespace: XMPPNamespace.streamManagement) != nil
        if streamManagementOffered, let resumption {
            phase = .resuming
            return [.send(XMPPElement("resume", namespace: XMPPNamespace.streamManagement,
                                      attributes: ["previd": resumption.id, "h": String(resumption.handled)]))]
        }
        guard features.child("bind", namespace: XMPPNamespace.bind) != nil else {
            return fail(.protocolViolation, "server offers no resource binding after authentication")
        }
        return bind()
    }

    private mutating func bind() -> [Action] {
        phase = .binding
        let resourceElement = XMPPElement("resource", namespace: XMPPNamespace.bind, text: resource)
        let payload = XMPPElement("bind", namespace: XMPPNamespace.bind, children: resource.isEmpty ? [] : [resourceElement])
        return [.send(.iq(type: "set", id: "bind", payload: payload))]
    }

    private mutating func unexpected(_ element: XMPPElement) -> [Action] {
        fail(.protocolViolation, "unexpected <\(element.name) xmlns='\(element.namespace)'> during login (\(phase))")
    }

    private mutating func fail(_ code: ErrorCode<XMPPError>, _ message: String) -> [Action] {
        phase = .done
        return [.failed(XMPPError(code, message))]
    }
}
