extension CallSubscriber {
    /// Receives every decoded frame of the stream (the seed's `subscriber.videoRender`), across
    /// reconnections, layer switches and audio fallback; `nil` for none. See
    /// ``VideoFrameOutput`` for the drop policy.
    ///
    /// ```swift
    /// subscriber.videoRenderer = PictureInPictureRenderer()
    /// ```
    public var videoRenderer: (any VideoRenderer)? {
        get { videoOutput.renderer }
        set { videoOutput.renderer = newValue }
    }

    /// A new stream of the decoded frames (bounded: the oldest unread frame is dropped when
    /// the reader is behind); it finishes when the subscriber is unsubscribed.
    public var videoFrames: AsyncStream<CallVideoFrame> { videoOutput.frames() }
}
