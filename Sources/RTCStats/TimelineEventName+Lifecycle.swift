/// The lifecycle events `callscope call` prints as callbacks and, with `--record`, writes as
/// timeline events (`data.stream` added when the event concerns a stream). A replay reads them
/// as any other event and acts on none; they are here so the command line spells them in one
/// place. Package-only: an app that records its own call writes none of them.
extension TimelineEventName {
    package static let sessionDidConnect = "session.didConnect"
    package static let sessionDidDisconnect = "session.didDisconnect"
    package static let sessionDidFail = "session.didFail"
    package static let sessionStreamCreated = "session.streamCreated"
    package static let sessionStreamDestroyed = "session.streamDestroyed"
    package static let sessionStreamVideoDimensionsChanged = "session.streamVideoDimensionsChanged"
    package static let sessionConnectionCreated = "session.connectionCreated"
    package static let sessionConnectionDestroyed = "session.connectionDestroyed"
    package static let sessionConnectionStateChanged = "session.connectionStateChanged"

    package static let participantDidConnect = "participant.didConnect"
    package static let participantDidDisconnect = "participant.didDisconnect"
    package static let participantPathsChanged = "participant.pathsChanged"

    package static let subscriberDidConnect = "subscriber.didConnect"
    package static let subscriberDidDisconnect = "subscriber.didDisconnect"
    package static let subscriberDidReconnect = "subscriber.didReconnect"
    package static let subscriberDidFail = "subscriber.didFail"
    package static let subscriberVideoDisableWarningLifted = "subscriber.videoDisableWarningLifted"

    package static let publisherStreamCreated = "publisher.streamCreated"
    package static let publisherStreamDestroyed = "publisher.streamDestroyed"
    package static let publisherDidConnect = "publisher.didConnect"
    package static let publisherDidDisconnect = "publisher.didDisconnect"
    package static let publisherDidReconnect = "publisher.didReconnect"
    package static let publisherDidFail = "publisher.didFail"
}
