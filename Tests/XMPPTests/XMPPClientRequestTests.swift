import CallScopeCore
import Foundation
import Testing
@testable import XMPP
@testable import XMPPClient
import XMPPTesting

/// The client's IQ hooks for protocols built on it (Jingle for friend connections), against the
/// scripted server: incoming IQs routed by payload namespace and answered as the handler says,
/// others refused; outgoing IQ sets waited for; a contact's available resources.
@Suite struct XMPPClientRequestTests {
    private func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    private func connectedClient() async throws -> (XMPPClient, ScriptedXMPPServer) {
        let connections = Locked<[ScriptedXMPPServer]>([])
        let client = XMPPClient(
            account: XMPPAccount(jid: JID("me@example.org")!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!, allowsPlainAuthentication: true),
            configuration: XMPPClientConfiguration(pingInterval: .seconds(3600), reconnectionDelays: [.milliseconds(10)]),
            transport: { _ in
                let connection = ScriptedXMPPServer(roster: ["bob@example.org"])
                connections.withLock { $0.append(connection) }
                return connection
            })
        try await client.connect()
        return (client, try #require(connections.withLock { $0.first }))
    }

    @Test func incomingRequestsGoToTheirHandler() async throws {
        let (client, connection) = try await connectedClient()
        let seen = Locked<[(String, JID)]>([])
        await client.handleRequests(namespace: "urn:example:signal") { iq, from in
            let value = iq.children.first?.attributes["value"] ?? ""
            seen.withLock { $0.append((value, from)) }
            return value == "ok" ? nil : "item-not-found"
        }
        connection.deliver("<iq xmlns='jabber:client' type='set' id='s1' from='bob@example.org/laptop'><signal xmlns='urn:example:signal' value='ok'/></iq>")
        connection.deliver("<iq xmlns='jabber:client' type='set' id='s2' from='bob@example.org/laptop'><signal xmlns='urn:example:signal' value='unknown'/></iq>")
        connection.deliver("<iq xmlns='jabber:client' type='set' id='s3' from='bob@example.org/laptop'><other xmlns='urn:example:other'/></iq>")
        #expect(await waitUntil { connection.sent.contains { $0.contains("id=\"s3\"") } })
        #expect(seen.withLock { $0.map(\.0) } == ["ok", "unknown"])
        #expect(seen.withLock { $0.first?.1 } == JID("bob@example.org/laptop"))
        let replies = connection.sent.filter { $0.hasPrefix("<iq") }
        let s1 = replies.first { $0.contains("id=\"s1\"") } ?? ""
        let s2 = replies.first { $0.contains("id=\"s2\"") } ?? ""
        let s3 = replies.first { $0.contains("id=\"s3\"") } ?? ""
        #expect(s1.contains("type=\"result\"") && s1.contains("to=\"bob@example.org/laptop\""), "\(s1)")
        #expect(s2.contains("type=\"error\"") && s2.contains("<item-not-found"), "\(s2)")
        #expect(s3.contains("type=\"error\"") && s3.contains("<service-unavailable"), "\(s3)")
        await client.disconnect()
    }

    @Test func outgoingSetWaitsForItsResultOrError() async throws {
        let (client, connection) = try await connectedClient()
        let bob = JID("bob@example.org/laptop")!
        let payload = XMPPElement("signal", namespace: "urn:example:signal")
        for (reply, fails) in [("result", false), ("error", true)] {
            let before = connection.sent.count
            let call = Task { () -> Bool in
                do { try await client.set(payload, to: bob); return false } catch { return (error as? XMPPError)?.code == .stanzaError }
            }
            #expect(await waitUntil { connection.sent.dropFirst(before).contains { $0.contains("type=\"set\"") } })
            let sent = try #require(connection.sent.dropFirst(before).first { $0.contains("type=\"set\"") })
            let request = try XMPPElementReader.read(Array(sent.utf8))
            #expect(request.attributes["to"] == "bob@example.org/laptop")
            #expect(request.child("signal", namespace: "urn:example:signal") != nil)
            let id = request.attributes["id"] ?? ""
            let error = fails ? "<error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error>" : ""
            connection.deliver("<iq xmlns='jabber:client' type='\(reply)' id='\(id)' from='bob@example.org/laptop'>\(error)</iq>")
            #expect(await call.value == fails, "a \(reply) reply")
        }
        await client.disconnect()
    }

    @Test func availableResourcesFollowPresence() async throws {
        let (client, connection) = try await connectedClient()
        let bob = JID("bob@example.org")!
        #expect(await client.availableResources(of: bob).isEmpty)
        connection.deliver("<presence xmlns='jabber:client' from='bob@example.org/phone'/>")
        connection.deliver("<presence xmlns='jabber:client' from='bob@example.org/laptop'/>")
        let both = [JID("bob@example.org/laptop")!, JID("bob@example.org/phone")!]
        var resources: [JID] = []
        for _ in 0..<500 where resources != both {
            resources = await client.availableResources(of: bob)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(resources == both)
        connection.deliver("<presence xmlns='jabber:client' type='unavailable' from='bob@example.org/phone'/>")
        for _ in 0..<500 where resources.count != 1 {
            resources = await client.availableResources(of: bob)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(resources == [JID("bob@example.org/laptop")!])
        await client.disconnect()
    }
}
