import RTCStats

extension CallVideoDimensions {
    /// The size of the frames a subscriber's peer connection decodes: the video `inbound-rtp`
    /// entry's `frameWidth` × `frameHeight` (the last decoded frame's, per the W3C spec), from
    /// the entry that decoded the most frames when there are several; `nil` before the first
    /// decoded frame, or when a size is missing, zero, negative or not a whole number.
    init?(decodedIn report: StatsReport) {
        let video = report.entries(ofType: .inboundRTP).filter { $0.kind == "video" }
        guard let entry = video.max(by: { ($0.framesDecoded ?? 0) < ($1.framesDecoded ?? 0) }),
              let width = entry.frameWidth, let height = entry.frameHeight,
              width >= 1, height >= 1, width <= 65_536, height <= 65_536,
              width == width.rounded(), height == height.rounded() else { return nil }
        self.init(width: Int(width), height: Int(height))
    }
}
