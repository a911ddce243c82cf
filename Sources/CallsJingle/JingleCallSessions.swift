import Calls
import XMPP
import Jingle

/// Our publication's Jingle session: its id, our offer, the friend's answer once it came.
struct OwnPublication: Sendable {
    let sid: String
    let offer: JingleSession
    var answer: Result<SessionDescription, any Error>?
    var answerWaiter: CheckedContinuation<Result<SessionDescription, any Error>, Never>?
}

/// The friend's publication's Jingle session: its offer, and our subscription to it.
struct FriendPublication: Sendable {
    let sid: String
    let offer: JingleSession
    var subscribed = false
    /// Our answer, once ``JingleCallSignaling/start(_:answer:)`` gave it.
    var answer: JingleSession?
    /// Our candidates gathered before the accept went.
    var gathered: [IceCandidate] = []
    var accepted = false
    /// Mesh: the contents we asked the publisher to stop sending us (audio fallback).
    var pausedContents: Set<String> = []
}

extension JingleCallSignaling: RelayedSignaling {
    /// The friend's device and our publication's `sid`, once the friend accepted it.
    package func publicationSubscriber() async -> RelayedSubscriber? {
        guard let publication, case .success = publication.answer, let friendDevice else { return nil }
        return RelayedSubscriber(connectionId: friendDevice.description, subscriberId: publication.sid)
    }
}
