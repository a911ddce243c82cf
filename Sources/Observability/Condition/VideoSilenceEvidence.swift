/// What the link shows in an interval in which the video alone is silent (the audio arrives,
/// the subscriber does not hold the video): whether the link starves the video or the publisher
/// stopped it (docs/network-condition.md, "A starved video is not a stopped camera").
///
/// Measured on a relayed call (RealRelayedFallbackTests, Bob's downlink capped by `tc tbf`
/// against Alice really stopping her camera on a clean link):
///
/// | fact in the silent interval | capped at 64 kbit/s | camera stopped, no cap |
/// |---|---|---|
/// | the audio's loss | 7-13 of 40-57 packets (17-26 %) | none |
/// | the selected pair's round-trip time | 238-340 ms once refreshed (1-2 ms before the cap; the audio's loss alone told it in the first seconds of some runs) | 1-3 ms |
///
/// Either makes the silence the link's (``linkStarves``); both clean, the publisher's. The
/// publisher's RTCP sender reports are not used: their video packet count grew by 34 in a
/// second in which 15 packets arrived on the clean link (after a cap, while the publisher's
/// congestion control probed), so "sent but not arrived" read trouble where there was none.
/// A camera that stops on a link that is losing audio at the same moment is taken for a
/// starved link (the fallback, then probes that bring no frames): the price of never reading a
/// starved link as a stopped camera, which left the subscriber without a fallback at all.
struct VideoSilenceEvidence: Sendable, Hashable {
    /// The audio's loss in the interval from which the link counts as losing (2 of ~50 packets
    /// a second: one lost packet is noise).
    static let audioLossBound = 0.03

    /// The audio's packets lost ÷ expected in the interval.
    var audioLossFraction: Double
    /// The selected pair's round-trip time sits above its lowest (``QueueingDetector``).
    var roundTripQueued: Bool

    /// Whether the interval shows the link starving the video.
    var linkStarves: Bool {
        audioLossFraction >= Self.audioLossBound || roundTripQueued
    }
}
