import CallScopeCore
import Foundation
import Testing
@testable import XMPP
@testable import XMPPClient
import XMPPTesting

/// The client against a scripted in-memory server (PLAIN, no XEP-0198): hostile messages on an
/// established stream are dropped and counted while the session goes on; a lost connection is
/// re-established by the client itself with a fresh login.
@Suite struct XMPPClientScriptedServerTests {

    private func waitFor(_ log: Locked<[XMPPClientEvent]>, _ predicate: (XMPPClientEvent) -> Bool) async -> Bool {
        await waitUntil { log.withLock { $0.contains(where: predicate) } }
    }

    /// Polls `condition` every 10 ms for at most 5 s.
    private func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func hostileMessagesAreCountedAndReconnectionLogsInAgain() async throws {
        let connections = Locked<[ScriptedXMPPServer]>([])
        let client = XMPPClient(
            account: XMPPAccount(jid: JID("me@example.org")!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!, allowsPlainAuthentication: true),
            configuration: XMPPClientConfiguration(pingInterval: .seconds(3600), reconnectionDelays: [.milliseconds(10)]),
            transport: { _ in
                let connection = ScriptedXMPPServer(roster: ["bob@example.org"])
                connections.withLock { $0.append(connection) }
                return connection
            })
        let log = Locked<[XMPPClientEvent]>([])
        let events = client.events()
        let reader = Task { for await event in events { log.withLock { $0.append(event) } } }
        defer { reader.cancel() }

        try await client.connect()
        #expect(await client.jid == JID("me@example.org/r"))
        #expect(await client.friends == [Friend(jid: JID("bob@example.org")!, availability: .offline)])
        let first = try #require(connections.withLock { $0.first })
        #expect(first.sent.last == "<presence xmlns=\"jabber:client\"/>")

        // Hostile input on the established stream: each dropped, counted, reported.
        first.deliver("<!DOCTYPE a [<!ENTITY e 'x'>]><message xmlns='jabber:client'>&e;</message>")
        first.deliver(bytes: [0x3C, 0xFF, 0xFE])
        first.deliver(String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100))
        first.deliver("<iq xmlns='jabber:client' type='set' id='spoof' from='mallory@evil.example'><query xmlns='jabber:iq:roster'><item jid='mallory@evil.example' subscription='both'/></query></iq>")
        // The session goes on: bob's presence still arrives.
        first.deliver("<presence xmlns='jabber:client' from='bob@example.org/laptop'/>")
        #expect(await waitFor(log) { $0 == .roster(.friendChanged(Friend(jid: JID("bob@example.org")!, availability: .available(show: nil)))) })
        #expect(await client.statistics.droppedMessages == 4)
        #expect(log.withLock { $0.filter { if case .droppedMessage = $0 { true } else { false } }.count } == 4)
        #expect(await client.friends.map(\.jid) == [JID("bob@example.org")!])   // the spoofed push changed nothing
        #expect(first.sent.contains { $0.contains("id=\"spoof\"") && $0.contains("type=\"error\"") })

        // The connection drops: the client reconnects, logs in again and fetches the roster.
        first.abort()
        #expect(await waitFor(log) { if case .connectionLost = $0 { true } else { false } })
        let connected: @Sendable (XMPPClientEvent) -> Bool = { $0 == .connected(jid: JID("me@example.org/r")!, resumed: false) }
        #expect(await waitUntil { log.withLock { $0.filter(connected).count } == 2 })   // the second login is done
        #expect(await client.statistics.reconnections == 1)
        // Presence was forgotten with the old session: bob is offline until he says otherwise.
        #expect(await client.friends.first?.availability == .offline)

        await client.disconnect()
        #expect(await waitFor(log) { $0 == .disconnected(nil) })
        #expect(connections.withLock { $0.count } == 2)   // no reconnection after a logout
    }

    @Test func aBouncedFriendRequestIsSaidAndCounted() async throws {
        let connection = Locked<ScriptedXMPPServer?>(nil)
        let client = XMPPClient(
            account: XMPPAccount(jid: JID("me@example.org")!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!, allowsPlainAuthentication: true),
            configuration: XMPPClientConfiguration(pingInterval: .seconds(3600), reconnectionDelays: [.milliseconds(10)]),
            transport: { _ in
                let scripted = ScriptedXMPPServer(roster: ["bob@example.org"])
                connection.withLock { $0 = scripted }
                return scripted
            })
        let log = Locked<[XMPPClientEvent]>([])
        let events = client.events()
        let reader = Task { for await event in events { log.withLock { $0.append(event) } } }
        defer { reader.cancel() }
        try await client.connect()
        let server = try #require(connection.withLock { $0 })
        // RFC 6120 §8.3's shape, as Prosody's mod_s2s bounces a stanza it could not deliver.
        server.deliver("<presence xmlns='jabber:client' type='error' from='carol@unreachable.example' to='me@example.org/r'>"
            + "<error type='cancel' by='example.org'><remote-server-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/>"
            + "<text xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'>Server-to-server connection failed: connection refused</text></error></presence>")
        let expected = XMPPClientEvent.droppedMessage(XMPPError(.stanzaError,
            "presence to carol@unreachable.example bounced: remote-server-not-found (Server-to-server connection failed: connection refused)"))
        #expect(await waitFor(log) { $0 == expected }, "\(log.withLock { $0 })")
        #expect(await client.statistics.droppedMessages == 1)
        #expect(await client.friends.map(\.jid) == [JID("bob@example.org")!])   // the roster is untouched
        await client.disconnect()
    }
}
