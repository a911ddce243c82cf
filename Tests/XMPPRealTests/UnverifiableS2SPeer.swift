import ConnectivityProbe
import Foundation

/// A remote server that cannot be verified: it opens an s2s stream (RFC 6120, `jabber:server`)
/// to a Prosody server claiming a domain whose own server never answers (routed to a
/// `SilentListener`), asks for dialback (XEP-0220 `<db:result/>`) and sends a friend request at
/// once, then reads whatever comes back until the server closes the stream.
enum UnverifiableS2SPeer {
    /// What the server did: everything it sent, and when it closed the stream (`nil`: still open
    /// at the deadline, a hang).
    struct Outcome: Sendable {
        let reply: String
        let closedAfter: Duration?
    }

    /// Runs the exchange on its own thread (the reads block) and returns at the close or `within`.
    static func run(port: UInt16, claiming domain: String, to serverDomain: String, subscriber: String, contact: String,
                    within timeout: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: exchange(port: port, claiming: domain, to: serverDomain, subscriber: subscriber, contact: contact, within: timeout))
            }
        }
    }

    private static func exchange(port: UInt16, claiming domain: String, to serverDomain: String, subscriber: String, contact: String,
                                 within timeout: Duration) -> Outcome {
        let start = ContinuousClock.now
        let deadline = start + timeout
        var received: [UInt8] = []
        do {
            let address = try ResolvedAddress.resolve(ProbeEndpoint(host: ProsodyServers.address, port: port), stream: true)
            let socket = try POSIXSocket(family: address.family, stream: true)
            try socket.open(to: address, deadline: deadline)
            let opening = "<?xml version='1.0'?><stream:stream xmlns='jabber:server' xmlns:stream='http://etherx.jabber.org/streams'"
                + " xmlns:db='jabber:server:dialback' from='\(domain)' to='\(serverDomain)' version='1.0'>"
            let requests = "<db:result from='\(domain)' to='\(serverDomain)'>0123456789abcdef0123456789abcdef</db:result>"
                + "<presence type='subscribe' from='\(subscriber)' to='\(contact)'/>"
            try socket.transmit(Array((opening + requests).utf8), deadline: deadline)
            while let chunk = try socket.receiveBytes(capacity: 4096, deadline: deadline) {
                if chunk.isEmpty {
                    socket.shutdownBothDirections()
                    return Outcome(reply: String(decoding: received, as: UTF8.self), closedAfter: ContinuousClock.now - start)
                }
                received += chunk
            }
            socket.shutdownBothDirections()
        } catch {
            // A reset counts as the server closing; anything earlier (no connection) is in the reply.
            return Outcome(reply: String(decoding: received, as: UTF8.self) + " [\(error)]",
                           closedAfter: received.isEmpty ? nil : ContinuousClock.now - start)
        }
        return Outcome(reply: String(decoding: received, as: UTF8.self), closedAfter: nil)
    }
}
