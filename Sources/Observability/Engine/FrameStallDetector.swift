/// Pauses and freezes computed from a frame counter, for receivers whose reports lack the W3C
/// `freezeCount`/`pauseCount` counters (Safari, Firefox, older engines).
///
/// Samples come once per interval, so individual frame times are unknown. When the counter
/// stops and later moves again, the gap is estimated as the time from the last sample that saw
/// progress to the sample that sees it again, minus the time the new frames would have taken at
/// the mean frame duration (they are assumed to arrive at the normal rate right up to that
/// sample). The gap is then classified (docs/spec/observability.md §3): longer than the pause threshold
/// → a pause; at least max(3 × mean frame duration, mean + 150 ms) → a freeze. Limits: stalls
/// shorter than one interval that do not stop the counter for a whole interval are not seen,
/// and durations are accurate to about one frame plus sampling jitter.
struct FrameStallDetector: Sendable {
    private let pauseThreshold: Double
    private var lastFrames: Double?
    private var lastSampleTime: Double = 0
    private var lastProgressTime: Double = 0
    private var meanFrameDuration: Double?

    private(set) var pauseCount = 0
    private(set) var totalPausesDuration: Double = 0
    private(set) var freezeCount = 0
    private(set) var totalFreezesDuration: Double = 0

    init(pauseThresholdMilliseconds: Double) {
        pauseThreshold = pauseThresholdMilliseconds
    }

    /// Feeds the frame counter (`framesDecoded`, or `framesReceived`) at `time` (ms).
    /// `countsFreezes` false: a gap that ends here is a pause when long enough, never a freeze
    /// (the SDK paused the video itself).
    mutating func update(time: Double, frames: Double, countsFreezes: Bool = true) {
        defer { lastSampleTime = time }
        guard let last = lastFrames, frames >= last else {
            // First sample or a counter reset: start over from here.
            lastFrames = frames
            lastProgressTime = time
            return
        }
        guard frames > last else { return }
        let newFrames = frames - last
        lastFrames = frames
        if lastSampleTime > lastProgressTime, let mean = meanFrameDuration {
            let earliestResume = lastSampleTime - lastProgressTime
            let gap = max(earliestResume, time - lastProgressTime - newFrames * mean)
            if gap > pauseThreshold {
                pauseCount += 1
                totalPausesDuration += gap
            } else if countsFreezes, gap >= max(3 * mean, mean + 150) {
                freezeCount += 1
                totalFreezesDuration += gap
            }
        } else if time > lastSampleTime {
            meanFrameDuration = (time - lastSampleTime) / newFrames
        }
        lastProgressTime = time
    }
}
