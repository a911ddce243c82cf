/// What a publishing peer connection captures and how it encodes it.
public struct LocalMediaSettings: Hashable, Sendable {
    /// One simulcast layer of the video track.
    public struct Encoding: Hashable, Sendable {
        /// The RTP stream id (`a=rid`), e.g. `f`, `h`, `q`.
        public var rid: String
        /// `scaleResolutionDownBy` (1 = full size).
        public var scaleResolutionDownBy: Double
        /// `maxBitrate` in bit/s.
        public var maxBitrate: Int

        /// Creates a layer.
        public init(rid: String, scaleResolutionDownBy: Double, maxBitrate: Int) {
            self.rid = rid
            self.scaleResolutionDownBy = scaleResolutionDownBy
            self.maxBitrate = maxBitrate
        }
    }

    /// Send the microphone.
    public var audio: Bool
    /// Send the camera.
    public var video: Bool
    /// Capture width in pixels.
    public var width: Int
    /// Capture height in pixels.
    public var height: Int
    /// Capture frame rate.
    public var frameRate: Int
    /// The simulcast layers, highest first (Janus maps the first rid to substream 2); empty for
    /// a single layer.
    public var encodings: [Encoding]
    /// Preferred video codec (its MIME subtype, e.g. `VP8`), or `nil` for the engine's default.
    public var preferredVideoCodec: String?
    /// Audio `maxBitrate` in bit/s, or `nil` for the engine's default.
    public var audioMaxBitrate: Int?

    /// Creates settings.
    public init(audio: Bool = true, video: Bool = true, width: Int = 960, height: Int = 540, frameRate: Int = 30,
                encodings: [Encoding] = LocalMediaSettings.threeLayerSimulcast,
                preferredVideoCodec: String? = "VP8", audioMaxBitrate: Int? = 64_000) {
        self.audio = audio
        self.video = video
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.encodings = encodings
        self.preferredVideoCodec = preferredVideoCodec
        self.audioMaxBitrate = audioMaxBitrate
    }

    /// The audio bitrate counted for an audio track without ``audioMaxBitrate`` (bps): Opus at
    /// its usual ceiling, as the replay counts a recording header that gives none.
    public static let assumedAudioMaxBitrate = 64_000

    /// The ceiling these settings let the sender's congestion controller allocate
    /// (`connectionMaxAllocatedBitrate`, docs/spec/observability.md §3): Σ of the encodings'
    /// `maxBitrate` plus the audio's (``assumedAudioMaxBitrate`` when it has none), bps; `nil`
    /// when video is sent as one layer without encodings (no `maxBitrate` is set, so the ceiling
    /// is the engine's own and the highest target seen stands in).
    public var connectionMaxAllocatedBitrate: Double? {
        let audioCeiling = audio ? Double(audioMaxBitrate ?? Self.assumedAudioMaxBitrate) : 0
        guard video else { return audio ? audioCeiling : nil }
        guard !encodings.isEmpty else { return nil }
        return Double(encodings.reduce(0) { $0 + $1.maxBitrate }) + audioCeiling
    }

    /// The rig's three layers: full, half and quarter size at 1.5 M, 500 k and 150 kbit/s.
    public static let threeLayerSimulcast: [Encoding] = [
        Encoding(rid: "f", scaleResolutionDownBy: 1, maxBitrate: 1_500_000),
        Encoding(rid: "h", scaleResolutionDownBy: 2, maxBitrate: 500_000),
        Encoding(rid: "q", scaleResolutionDownBy: 4, maxBitrate: 150_000),
    ]
}
