/// Receives the decoded frames of a subscriber's stream or a publisher's local preview: the
/// custom renderer of seed 002 (the reference SDK's `OTVideoRender`). Set it as
/// ``CallSubscriber/videoRenderer`` or ``CallPublisher/videoRenderer``.
///
/// Frames arrive one at a time, in order, on a serial queue of the output (never on the
/// session's executor nor on an engine thread). A renderer slower than the frame rate does not
/// build a queue: the oldest waiting frames are dropped and counted in
/// ``VideoDeliveryStats/dropped``.
public protocol VideoRenderer: AnyObject, Sendable {
    /// Shows (or converts, or stores) one frame. The frame's planes stay valid as long as the
    /// renderer keeps the ``CallVideoFrame``.
    func renderVideoFrame(_ frame: CallVideoFrame)
}
