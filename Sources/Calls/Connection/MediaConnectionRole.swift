import Observability

/// What a media connection does with its machine's actions: the part of a subscription and a
/// publication that differs. Everything else (the machine, its timers, feeding it in order)
/// is the ``MediaConnectionController``'s. Every requirement runs on the session's executor.
protocol MediaConnectionRole: AnyObject {
    /// Deliver a lifecycle event to the app.
    func emit(_ kind: CallSubscriberEvent.Kind, in session: isolated CallSession)
    /// Restart ICE on `handle`'s peer connection (a subscriber asks the router to offer; a
    /// publisher offers itself).
    func restartIce(on handle: RouterHandleID, in session: isolated CallSession) async
    /// Close `peerConnection` and `handle` and open a new pair (subscribe, or publish, again).
    func replace(_ peerConnection: PeerConnectionID, handle: RouterHandleID, in session: isolated CallSession) async
    /// The reconnect window ran out: the stream is gone for the app.
    func destroyStream(in session: isolated CallSession)
    /// The connection has ended: close what is still open.
    func tearDown(_ peerConnection: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async
}
