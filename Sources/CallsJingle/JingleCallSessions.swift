import Calls
import XMPP
import Jingle

/// Our publication's Jingle session: its id, our offer, the friend's answer once it came.
struct OwnPublication: Sendable {
    let sid: String
    let offer: JingleSession
    var answer: Result<SessionDescription, any Error>?
    var answerWaiter: CheckedContinuation<Result<SessionDescription, any Error>, Never>?
    /// The contents the friend asked us to stop sending (its `content-modify` with
    /// `senders='none'`: its audio fallback).
    var pausedContents: Set<String> = []
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
    /// The contents we asked the publisher to stop sending us (audio fallback).
    var pausedContents: Set<String> = []
}

extension JingleCallSignaling: RelayedSignaling {
    /// The friend's device and our publication's `sid`, once the friend accepted it.
    package func publicationSubscriber() async -> RelayedSubscriber? {
        guard let publication, case .success = publication.answer, let friendDevice else { return nil }
        return RelayedSubscriber(connectionId: friendDevice.description, subscriberId: publication.sid)
    }

    /// Whether the friend still wants our video (it sent no `content-modify` pausing our
    /// publication's video, or resumed it since); `true` without a publication.
    package func publicationSubscriberWantsVideo() async -> Bool {
        guard let publication else { return true }
        return JingleAudioFallback.wantsVideo(offer: publication.offer, paused: publication.pausedContents)
    }
}
