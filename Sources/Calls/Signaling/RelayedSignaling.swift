/// A ``Signaling`` with no router: the publication's media connection reaches one subscriber
/// directly (a relayed call between two friends). The session then names that subscriber in the
/// publisher's stats arrays, as a relayed publisher's arrays do (docs/peer-to-peer.md).
package protocol RelayedSignaling: Signaling {
    /// The subscriber our current publication's media connection reaches, once it accepted;
    /// `nil` before.
    func publicationSubscriber() async -> RelayedSubscriber?
}

/// Who a relayed publication's media connection reaches.
package struct RelayedSubscriber: Hashable, Sendable {
    /// The subscriber's connection (its participant id).
    package var connectionId: String
    /// The subscription's own id (Jingle: the publication session's `sid`).
    package var subscriberId: String

    package init(connectionId: String, subscriberId: String) {
        self.connectionId = connectionId
        self.subscriberId = subscriberId
    }
}
