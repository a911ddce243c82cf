import CallScopeCore
import Observability

/// How a ``CallPublisher`` publishes.
public struct CallPublisherSettings: Hashable, Sendable {
    /// The stream's name (the display name others see).
    public var name: String?
    /// Camera, screen or custom.
    public var videoType: CallStreamVideoType
    /// Capture and simulcast layers.
    public var media: LocalMediaSettings
    /// Send sender-side stats to subscribers over a data channel (docs/spec/observability.md §4).
    public var senderStatsTrack: Bool
    /// Subscribers may switch this publisher's video off and keep its audio when their network
    /// cannot carry even the lowest layer (default `true`; carried to them in the sender stats,
    /// so it needs ``senderStatsTrack``).
    public var audioFallbackEnabled: Bool

    /// Creates settings.
    public init(name: String? = nil, videoType: CallStreamVideoType = .camera, media: LocalMediaSettings = .init(),
                senderStatsTrack: Bool = false, audioFallbackEnabled: Bool = true) {
        self.audioFallbackEnabled = audioFallbackEnabled
        self.name = name
        self.videoType = videoType
        self.media = media
        self.senderStatsTrack = senderStatsTrack
    }
}

/// Publishes camera (or custom) video and audio into a session; hand it to
/// ``CallSession/publish(_:)``. The SDK samples its stats every
/// ``CallSessionConfiguration/statsInterval`` into ``statsMonitor``.
public final class CallPublisher: Sendable {
    /// The data channel sender-stats messages travel on.
    public static let senderStatsChannel = "callscope"

    /// How it publishes.
    public let settings: CallPublisherSettings
    /// Its stats (docs/spec/README.md: the delegates live on the publisher object).
    public let statsMonitor: PublisherStatsMonitor
    private let published = Locked<CallStream?>(nil)
    private let fanOut = EventFanOut<CallPublisherEvent>()
    private let storedDelegate: Locked<WeakPublisherDelegate>
    private let videoSwitch = Locked(true)
    /// Where its local preview goes (``videoRenderer``, ``videoFrames``), with the counts of
    /// what was delivered and dropped.
    public let videoOutput = VideoFrameOutput(label: "publisher")

    /// Creates a publisher.
    public init(settings: CallPublisherSettings = .init(), delegate: (any CallPublisherDelegate)? = nil) {
        self.settings = settings
        // Its ceiling is known from its settings (docs/spec/observability.md §3), not guessed
        // from the targets seen.
        statsMonitor = PublisherStatsMonitor(senderStatsTrack: settings.senderStatsTrack, audioFallbackEnabled: settings.audioFallbackEnabled,
                                             configuration: StatsEngineConfiguration(maxAllocatedBitrate: settings.media.connectionMaxAllocatedBitrate))
        storedDelegate = Locked(WeakPublisherDelegate(delegate))
    }

    /// The lifecycle delegate (held weakly).
    public var delegate: (any CallPublisherDelegate)? {
        get { storedDelegate.withLock { $0.object } }
        set { storedDelegate.withLock { $0 = WeakPublisherDelegate(newValue) } }
    }

    /// Every later lifecycle event (a new stream per access).
    public var events: AsyncStream<CallPublisherEvent> { fanOut.makeStream() }

    /// Receives the raw reports asked for with ``getRtcStatsReport()`` (held weakly by the
    /// monitor).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? {
        get { statsMonitor.rtcStatsReportDelegate }
        set { statsMonitor.rtcStatsReportDelegate = newValue }
    }

    /// Asks for the raw WebRTC report of its peer connection, asynchronously: while it is
    /// published it is a fresh one (a new `getStats()`), else the last one sampled.
    /// ``rtcStatsReportDelegate`` receives it.
    public func getRtcStatsReport() { statsMonitor.getRtcStatsReport() }

    /// The stats delegate, on the publisher as in docs/spec/README.md (held weakly by the monitor).
    public var networkStatsDelegate: (any PublisherNetworkStatsDelegate)? {
        get { statsMonitor.delegate }
        set { statsMonitor.delegate = newValue }
    }

    /// Our stream while published.
    public var stream: CallStream? { published.withLock { $0 } }

    /// Whether the camera is sent (`publishVideo` in docs/spec/README.md, default `true`): `false` disables
    /// the video track (the router keeps the m-line; subscribers get
    /// `videoDisabled(.publisherPropertyChanged)` from the sender stats), `true` enables it.
    /// Applied within one stats interval.
    public var publishVideo: Bool {
        get { videoSwitch.withLock { $0 } }
        set { videoSwitch.withLock { $0 = newValue } }
    }

    func setStream(_ stream: CallStream?) { published.withLock { $0 = stream } }

    /// Delivers events: delegate first, then the streams, in order.
    func deliver(_ events: [CallPublisherEvent]) {
        guard !events.isEmpty else { return }
        if let delegate {
            for event in events {
                switch event {
                case .didConnect: delegate.publisherDidConnect(self)
                case .didDisconnect: delegate.publisherDidDisconnect(self)
                case .didReconnect: delegate.publisherDidReconnect(self)
                case .streamDestroyed(let stream, let reason): delegate.publisher(self, streamDestroyed: stream, reason: reason)
                case .didFail(let error): delegate.publisher(self, didFailWithError: error)
                }
            }
        }
        fanOut.yield(events)
    }
}
