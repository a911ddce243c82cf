import RTCStats

/// The size of the frames a subscriber's peer connection decodes.
package struct DecodedVideoSize: Hashable, Sendable {
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int

    /// The video `inbound-rtp` entry's `frameWidth` × `frameHeight` (the last decoded frame's,
    /// per the W3C spec), from the entry that decoded the most frames when there are several;
    /// `nil` before the first decoded frame, or when a size is missing, zero, negative or not a
    /// whole number.
    package init?(decodedIn report: StatsReport) {
        let video = report.entries(ofType: .inboundRTP).filter { $0.kind == "video" }
        guard let entry = video.max(by: { ($0.framesDecoded ?? 0) < ($1.framesDecoded ?? 0) }),
              let width = entry.frameWidth, let height = entry.frameHeight,
              width >= 1, height >= 1, width <= 65_536, height <= 65_536,
              width == width.rounded(), height == height.rounded() else { return nil }
        self.width = Int(width)
        self.height = Int(height)
    }
}
