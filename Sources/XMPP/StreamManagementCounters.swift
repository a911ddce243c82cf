/// XEP-0198's counters for one stream session: how many of the server's stanzas we handled
/// (`h`, sent in `<a/>`), and our sent stanzas the server has not acknowledged yet (resent after
/// a resumption). Counts wrap at 2^32 as the XEP says; the queue is bounded.
package struct StreamManagementCounters: Sendable {
    /// Our count of stanzas received from the server.
    package private(set) var inboundHandled: UInt32 = 0
    /// The server's last acknowledged count of our stanzas.
    package private(set) var outboundAcknowledged: UInt32 = 0
    /// Our stanzas sent since the last acknowledgement, oldest first.
    package private(set) var unacknowledged: [XMPPElement] = []
    /// Stanzas dropped from a full queue (they will not be resent after a resumption).
    package private(set) var droppedFromQueue = 0
    /// The most unacknowledged stanzas kept.
    package let queueLimit: Int

    /// Counters starting at zero, as after `<enable/>` / `<enabled/>`.
    package init(queueLimit: Int = 500) { self.queueLimit = queueLimit }

    /// One stanza from the server was handled.
    package mutating func received() { inboundHandled &+= 1 }

    /// One stanza was sent.
    package mutating func sent(_ stanza: XMPPElement) {
        unacknowledged.append(stanza)
        if unacknowledged.count > queueLimit {
            unacknowledged.removeFirst()
            outboundAcknowledged &+= 1   // counted as if acknowledged: the server's h still counts it
            droppedFromQueue += 1
        }
    }

    /// The server handled `handled` of our stanzas (`<a h=/>` or `<resumed h=/>`): drops them
    /// from the queue. Throws (and changes nothing) when `handled` acknowledges more than was
    /// sent or goes backwards.
    package mutating func acknowledge(_ handled: UInt32) throws(XMPPError) {
        let newlyHandled = handled &- outboundAcknowledged
        guard Int(newlyHandled) <= unacknowledged.count else {
            throw XMPPError(.protocolViolation, "server acknowledged h=\(handled) but only \(outboundAcknowledged) + \(unacknowledged.count) stanzas were sent")
        }
        unacknowledged.removeFirst(Int(newlyHandled))
        outboundAcknowledged = handled
    }

    /// The answer to the server's `<r/>`: `<a h=N/>`.
    package var acknowledgement: XMPPElement {
        XMPPElement("a", namespace: XMPPNamespace.streamManagement, attributes: ["h": String(inboundHandled)])
    }

    /// After a resumption the server said it handled `handled`: drops those and returns the
    /// rest, to send again (they are counted again as they are resent).
    package mutating func resumed(serverHandled handled: UInt32) throws(XMPPError) -> [XMPPElement] {
        try acknowledge(handled)
        defer { unacknowledged.removeAll() }
        return unacknowledged
    }
}
