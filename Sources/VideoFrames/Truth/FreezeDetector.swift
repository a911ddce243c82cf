/// Freezes and pauses in a sequence of frame arrival times, by the definitions of the W3C
/// statistics (`freezeCount`, `pauseCount`) that libwebrtc implements:
///
/// - an interval between two consecutive frames is a **freeze** when it is at least
///   `max(3 · avg, avg + 150 ms)`, where `avg` is the mean of the last 30 intervals including
///   this one (libwebrtc's moving average, which needs at least 5 of them before it judges);
/// - an interval of ``pauseSeconds`` or more is a **pause**, not a freeze, and is left out of
///   the average (libwebrtc marks the stream inactive then).
public enum FreezeDetector {
    /// Intervals this long or longer are pauses.
    public static let pauseSeconds = 5.0
    /// Intervals in the moving average.
    public static let averageWindow = 30
    /// Intervals needed before a freeze can be detected.
    public static let minimumSamples = 5
    /// The smallest increase over the average that is a freeze.
    public static let minimumIncreaseSeconds = 0.150

    /// The freezes and pauses between the frames arriving at `times` (seconds, ascending), and
    /// the mean interval of the frames that were neither.
    public static func stalls(in times: [Double]) -> (freezes: [VideoStall], pauses: [VideoStall], meanInterval: Double?) {
        var window: [Double] = []
        var freezes: [VideoStall] = [], pauses: [VideoStall] = []
        var smoothSum = 0.0, smoothCount = 0
        for (previous, next) in zip(times, times.dropFirst()) {
            let interval = next - previous
            if interval >= pauseSeconds {
                pauses.append(VideoStall(start: previous, duration: interval))
                continue
            }
            window.append(interval)
            if window.count > averageWindow { window.removeFirst() }
            if window.count >= minimumSamples {
                let average = window.reduce(0, +) / Double(window.count)
                if interval >= max(3 * average, average + minimumIncreaseSeconds) {
                    freezes.append(VideoStall(start: previous, duration: interval))
                    continue
                }
            }
            smoothSum += interval
            smoothCount += 1
        }
        return (freezes, pauses, smoothCount > 0 ? smoothSum / Double(smoothCount) : nil)
    }
}
