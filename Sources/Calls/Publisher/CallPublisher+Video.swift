extension CallPublisher {
    /// Receives every frame of the local preview (the captured video before encoding), across
    /// republishes; `nil` for none. See ``VideoFrameOutput`` for the drop policy.
    public var videoRenderer: (any VideoRenderer)? {
        get { videoOutput.renderer }
        set { videoOutput.renderer = newValue }
    }

    /// A new stream of the local preview's frames (bounded: the oldest unread frame is dropped
    /// when the reader is behind); it finishes when the publisher is unpublished.
    public var videoFrames: AsyncStream<CallVideoFrame> { videoOutput.frames() }
}
