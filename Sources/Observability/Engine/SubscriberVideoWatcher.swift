/// Watches a subscriber's received video for the changes that fire `videoQualityChanged`
/// (a pause of at least 5 s beginning or ending, a decoded-resolution change, a codec change) and
/// for "poor video right now" (a stall, a frame-rate collapse, or heavy loss).
struct SubscriberVideoWatcher: Sendable {
    private let pauseThreshold: Double
    private var lastFrames: Double?
    private var lastProgressTime: Double?
    private var paused = false
    private var lastSize: (width: Int, height: Int)?
    private var lastCodec: String?
    private var recentFrameRates: [Double] = []

    init(pauseThresholdMilliseconds: Double) {
        pauseThreshold = pauseThresholdMilliseconds
    }

    /// Feeds one sample; returns the reasons to fire and whether the video is poor now.
    mutating func update(time: Double, frames: Double?, width: Int, height: Int, codec: String?, frameRate: Double, lossFraction: Double?) -> (reasons: [SubscriberVideoEventReason], poor: Bool) {
        var reasons: [SubscriberVideoEventReason] = []
        var stalled = false
        if let frames {
            if let last = lastFrames, frames > last {
                if paused { reasons.append(.qualityChanged) }  // The pause ended.
                paused = false
                lastProgressTime = time
            } else if lastFrames == nil || frames < (lastFrames ?? 0) {
                lastProgressTime = time
            } else {
                stalled = true
                if !paused, let since = lastProgressTime, time - since >= pauseThreshold {
                    paused = true
                    reasons.append(.qualityChanged)  // The pause began.
                }
            }
            lastFrames = frames
        }
        if width > 0, height > 0 {
            if let last = lastSize, (last.width, last.height) != (width, height), !reasons.contains(.qualityChanged) {
                reasons.append(.qualityChanged)
            }
            lastSize = (width, height)
        }
        if let codec {
            if let last = lastCodec, last != codec { reasons.append(.codecChanged) }
            lastCodec = codec
        }
        let typical = recentFrameRates.sorted().dropFirst(recentFrameRates.count / 2).first ?? 0
        let collapsed = typical >= 10 && frameRate < typical / 2
        recentFrameRates.append(frameRate)
        if recentFrameRates.count > 10 { recentFrameRates.removeFirst() }
        return (reasons, stalled || collapsed || (lossFraction ?? 0) >= 0.05)
    }
}
