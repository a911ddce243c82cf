/// Whether a subscribed stream's publisher is sending, as the subscriber can tell from its own
/// reports (see docs/network-condition.md, "A publisher that stops sending").
package enum PublisherSending: String, Sendable, Hashable {
    /// Its media arrives (or nothing says it stopped).
    case sending
    /// Its video stopped while its audio keeps arriving on a clean link: the publisher stopped its video.
    case videoStopped
    /// Its video does not arrive while its audio does, on a link that shows trouble (the audio
    /// losing packets, or the round trip queueing): the link starves the video; the publisher
    /// still sends it.
    case videoStarved
    /// Nothing of it arrives while our path still delivers: it vanished, crashed or lost its
    /// uplink, and the router has not noticed yet.
    case stopped
}
