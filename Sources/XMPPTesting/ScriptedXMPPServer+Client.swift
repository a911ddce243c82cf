import Foundation
import XMPP
import XMPPClient

extension ScriptedXMPPServer {
    /// A client of `jid` (resource `r`, PLAIN allowed, no pings) whose every connection is this
    /// server; `reconnectionDelays` as ``XMPPClientConfiguration`` takes them (`nil`: its default).
    package func client(jid: String = "me@example.org", reconnectionDelays: [Duration]? = nil) -> XMPPClient {
        let configuration = reconnectionDelays.map { XMPPClientConfiguration(pingInterval: .seconds(3600), reconnectionDelays: $0) }
            ?? XMPPClientConfiguration(pingInterval: .seconds(3600))
        return XMPPClient(account: XMPPAccount(jid: JID(jid)!, password: "pw", resource: "r", webSocketURL: URL(string: "ws://127.0.0.1:1/x")!,
                                               allowsPlainAuthentication: true),
                          configuration: configuration, transport: { _ in self })
    }
}

/// Polls `condition` every 10 ms for at most 5 s; whether it held by then.
package func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<500 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
