import Testing

/// `callscope presence`: its usage errors, and a server that is not there (exit 1, no hang).
extension CommandLineTests {
    @Test(arguments: [
        (["presence", "--jid", "a@b", "--password", "p"], "--xmpp"),
        (["presence", "--xmpp", "http://127.0.0.1:1/x", "--jid", "a@b", "--password", "p"], "ws://"),
        (["presence", "--xmpp", "ws://127.0.0.1:1/x", "--password", "p"], "--jid"),
        (["presence", "--xmpp", "ws://127.0.0.1:1/x", "--jid", "nodomain@", "--password", "p"], "USER@DOMAIN"),
        (["presence", "--xmpp", "ws://127.0.0.1:1/x", "--jid", "a@b", "--password", "p", "--format", "xml"], "--format"),
        (["presence", "--xmpp", "ws://127.0.0.1:1/x", "--jid", "a@b", "--password", "p", "--duration", "-1"], "--duration"),
    ])
    func presenceUsageErrors(_ arguments: [String], _ mentioned: String) throws {
        let run = try callscope(arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains(mentioned), "\(run.errors)")
    }

    @Test func presenceWithNoServerFailsWithATransportError() throws {
        // Port 1 on loopback: connection refused at once.
        let run = try callscope("presence", "--xmpp", "ws://127.0.0.1:1/xmpp-websocket", "--jid", "a@example.org", "--password", "p", "--duration", "1")
        #expect(run.status == 1)
        #expect(run.errors.contains("transport"), "\(run.errors)")
    }
}
