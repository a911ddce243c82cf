import Observability

extension CallSubscriber {
    /// The largest video size wanted (`preferredResolution` in docs/spec/sessions.md §4, for
    /// simulcast streams):
    /// the router forwards the highest layer at or below it that the downlink carries; `nil`
    /// (default) for no limit. A change takes effect within one stats interval.
    public var preferredResolution: CallVideoDimensions? {
        get { storedPreferences.withLock { $0.resolution } }
        set { storedPreferences.withLock { $0.resolution = newValue } }
    }

    /// The lowest frame rate wanted (`preferredFrameRate`): the router forwards the lowest
    /// temporal layer that meets it; `nil` (default) for the full rate. A change takes effect
    /// within one stats interval.
    public var preferredFrameRate: Double? {
        get { storedPreferences.withLock { $0.frameRate } }
        set { storedPreferences.withLock { $0.frameRate = newValue.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } } }
    }

    /// Whether to receive the video (`subscribeToVideo`, default `true`); `false` pauses it at
    /// the router (`videoDisabled(.subscriberPropertyChanged)`), `true` resumes it.
    public var subscribeToVideo: Bool {
        get { storedPreferences.withLock { $0.subscribeToVideo } }
        set { storedPreferences.withLock { $0.subscribeToVideo = newValue } }
    }

    /// Whether to receive the audio (`subscribeToAudio`, default `true`); `false` pauses the
    /// audio media section at the router, `true` resumes it. The video is not affected. A change
    /// takes effect within one stats interval, and holds across reconnections.
    public var subscribeToAudio: Bool {
        get { storedAudioWanted.withLock { $0 } }
        set { storedAudioWanted.withLock { $0 = newValue } }
    }

    /// This subscriber's own audio-fallback switch (default `true`): when `false` its video is
    /// never switched off for quality, whatever the publisher allows.
    public var audioFallbackEnabled: Bool {
        get { storedPreferences.withLock { $0.audioFallbackEnabled } }
        set { storedPreferences.withLock { $0.audioFallbackEnabled = newValue } }
    }

    /// Why it receives less video than its preferences ask for, as the layer policy last
    /// decided (also given to ``statsMonitor``).
    public var receiveLimit: SubscriberReceiveLimit { storedReceiveLimit.withLock { $0 } }

    var preferences: LayerPreferences { storedPreferences.withLock { $0 } }
}
